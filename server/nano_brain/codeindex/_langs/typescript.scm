;; TypeScript and TSX definitions added to javascript.scm.
;; Loaded by the rules class of the module of the same name; one compiled query runs all
;; patterns in one pass over the tree.

;; Definitions: @def.<kind> on the defining node, @name on its name (@scope: a node that
;; only names a scope, e.g. a Rust impl).
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.enum
(internal_module name: (_) @name) @def.module
(function_signature name: (_) @name) @def.function
(method_signature name: (_) @name) @def.method
(abstract_method_signature name: (_) @name) @def.method
