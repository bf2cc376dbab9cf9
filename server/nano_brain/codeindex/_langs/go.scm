;; Go tree-sitter queries for the code index.
;; Capture conventions: see base.py.

;; Definitions
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(type_alias name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name) @def.method
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.variable))
(source_file (var_declaration
  (var_spec_list (var_spec name: (identifier) @name) @def.variable)))

;; Calls
(call_expression function: (identifier) @name) @call
(call_expression function: (selector_expression
  operand: (_) field: (field_identifier) @name)) @call

;; Imports (read by the rules' read_imports)
(import_spec) @import
