;; Python tree-sitter queries for the code index.
;; Loaded by the rules class of the module of the same name; one compiled query runs all
;; patterns in one pass over the tree.

;; Definitions: @def.<kind> on the defining node, @name on its name (@scope: a node that
;; only names a scope, e.g. a Rust impl).
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

;; Calls: @call on the call, @name on the called name.
(call function: (identifier) @name) @call
(call function: (attribute object: (_) attribute: (identifier) @name)) @call

;; Imports: @import on each statement (read by the language's read_imports hook).
(import_statement) @import
(import_from_statement) @import

;; Assignments (receiver typing): @assign, @assign.target, @assign.value.
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: (_) @assign.value) @assign
