;; Go tree-sitter queries for the code index.
;; Loaded by the rules class of the module of the same name; one compiled query runs all
;; patterns in one pass over the tree.

;; Definitions: @def.<kind> on the defining node, @name on its name (@scope: a node that
;; only names a scope, e.g. a Rust impl).
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(type_alias name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name) @def.method
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.variable))
(source_file (var_declaration
  (var_spec_list (var_spec name: (identifier) @name) @def.variable)))

;; Calls: @call on the call, @name on the called name.
(call_expression function: (identifier) @name) @call
(call_expression function: (selector_expression
  operand: (_) field: (field_identifier) @name)) @call

;; Imports: @import on each statement (read by the language's read_imports hook).
(import_spec) @import
