;; Rust tree-sitter queries for the code index.
;; Capture conventions: see base.py.

;; Definitions
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.trait
(type_item name: (type_identifier) @name) @def.type
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.constant
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(impl_item type: (_) @name) @scope

;; Calls
(call_expression function: (identifier) @name) @call
(call_expression function: (field_expression
  value: (_) field: (field_identifier) @name)) @call
(call_expression function: (scoped_identifier
  path: (_) name: (identifier) @name)) @call
(call_expression function: (generic_function function: (identifier) @name)) @call

;; Imports (read by the rules' read_imports)
(use_declaration) @import
