;; Python tree-sitter queries for the code index.
;; Capture conventions: see base.py.

;; Definitions
;; @body, and @doc on a docstring (a string alone as the body's first statement), and
;; @bases on a class's base list: extraction reads them instead of walking the tree.
(function_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @doc .)?) @body) @def.function
(class_definition
  name: (identifier) @name
  superclasses: (argument_list)? @bases
  body: (block . (expression_statement . (string) @doc .)?) @body) @def.class
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
(module (type_alias_statement left: (type (identifier) @name)) @def.type)

;; Calls (a bare call is captured by its name alone: the call starts where the name does)
(call function: (identifier) @callee)
(call function: (attribute object: (_) attribute: (identifier) @name)) @call

;; Imports (read by the rules' read_imports)
(import_statement) @import
(import_from_statement) @import

;; Assignments (they type call receivers; one starts where its target does)
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: (_) @assign.value)
