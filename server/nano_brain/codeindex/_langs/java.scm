;; Java tree-sitter queries for the code index.
;; Loaded by the rules class of the module of the same name; one compiled query runs all
;; patterns in one pass over the tree.

;; Definitions: @def.<kind> on the defining node, @name on its name (@scope: a node that
;; only names a scope, e.g. a Rust impl).
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(field_declaration declarator: (variable_declarator name: (identifier) @name) @def.constant)
(constant_declaration declarator: (variable_declarator name: (identifier) @name) @def.constant)

;; Calls: @call on the call, @name on the called name.
(method_invocation object: (_) name: (identifier) @name) @call
(method_invocation !object name: (identifier) @name) @call
(object_creation_expression type: (type_identifier) @name) @call
(object_creation_expression type: (generic_type (type_identifier) @name)) @call

;; Imports: @import on each statement (read by the language's read_imports hook).
(import_declaration) @import
