;; Java tree-sitter queries for the code index.
;; Capture conventions: see base.py.

;; Definitions
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(field_declaration declarator: (variable_declarator name: (identifier) @name) @def.constant)
(constant_declaration declarator: (variable_declarator name: (identifier) @name) @def.constant)

;; Calls
(method_invocation object: (_) name: (identifier) @name) @call
(method_invocation !object name: (identifier) @name) @call
(object_creation_expression type: (type_identifier) @name) @call
(object_creation_expression type: (generic_type (type_identifier) @name)) @call

;; Imports (read by the rules' read_imports)
(import_declaration) @import
