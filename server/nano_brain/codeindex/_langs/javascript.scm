;; JavaScript (also the base of TypeScript and TSX) tree-sitter queries for the code index.
;; Capture conventions: see base.py.

;; Definitions
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (_) @name) @def.class
(method_definition name: (_) @name) @def.method
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @def.variable))
(program (export_statement declaration:
  (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable)))
(program (export_statement declaration:
  (variable_declaration (variable_declarator name: (identifier) @name) @def.variable)))

;; Calls
(call_expression function: (identifier) @name) @call
(call_expression function: (member_expression
  object: (_)
  property: [(property_identifier) (private_property_identifier)] @name)) @call
(new_expression constructor: (identifier) @name) @call
(new_expression constructor: (member_expression
  object: (_) property: (property_identifier) @name)) @call

;; Imports (read by the rules' read_imports)
(import_statement) @import
(export_statement source: (_)) @import
(variable_declarator
  value: (call_expression function: (identifier) arguments: (arguments (string)))) @import
