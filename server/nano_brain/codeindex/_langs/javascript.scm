;; JavaScript (also the base of TypeScript and TSX) tree-sitter queries for the code index.
;; Loaded by the rules class of the module of the same name; one compiled query runs all
;; patterns in one pass over the tree.

;; Definitions: @def.<kind> on the defining node, @name on its name (@scope: a node that
;; only names a scope, e.g. a Rust impl).
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

;; Calls: @call on the call, @name on the called name.
(call_expression function: (identifier) @name) @call
(call_expression function: (member_expression
  object: (_)
  property: [(property_identifier) (private_property_identifier)] @name)) @call
(new_expression constructor: (identifier) @name) @call
(new_expression constructor: (member_expression
  object: (_) property: (property_identifier) @name)) @call

;; Imports: @import on each statement (read by the language's read_imports hook).
(import_statement) @import
(export_statement source: (_)) @import
(variable_declarator
  value: (call_expression function: (identifier) arguments: (arguments (string)))) @import
