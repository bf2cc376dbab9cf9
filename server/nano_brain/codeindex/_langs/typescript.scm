;; TypeScript and TSX definitions added to javascript.scm.
;; Capture conventions: see base.py.

;; Definitions
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.enum
(internal_module name: (_) @name) @def.module
(function_signature name: (_) @name) @def.function
(method_signature name: (_) @name) @def.method
(abstract_method_signature name: (_) @name) @def.method
