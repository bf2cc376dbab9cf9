;; Ruby tree-sitter queries for the code index.
;; Capture conventions: see base.py.

;; Definitions
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(program (assignment left: (constant) @name) @def.constant)

;; Calls
(call receiver: (_) method: (identifier) @name) @call
(call !receiver method: (identifier) @name) @call

;; Imports (read by the rules' read_imports)
(call !receiver method: (identifier) arguments: (argument_list (string))) @import
