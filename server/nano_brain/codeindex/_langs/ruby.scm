;; Ruby tree-sitter queries for the code index.
;; Loaded by the rules class of the module of the same name; one compiled query runs all
;; patterns in one pass over the tree.

;; Definitions: @def.<kind> on the defining node, @name on its name (@scope: a node that
;; only names a scope, e.g. a Rust impl).
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(program (assignment left: (constant) @name) @def.constant)

;; Calls: @call on the call, @name on the called name.
(call receiver: (_) method: (identifier) @name) @call
(call !receiver method: (identifier) @name) @call

;; Imports: @import on each statement (read by the language's read_imports hook).
(call !receiver method: (identifier) arguments: (argument_list (string))) @import
