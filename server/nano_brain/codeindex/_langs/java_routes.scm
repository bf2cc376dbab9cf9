;; Java route declarations (Spring controllers), read by codeindex/_langs/java_routes.py.
;; The class is captured; its methods' mapping annotations are read from it.
((class_declaration
   (modifiers [(annotation name: (identifier) @route.annotation)
               (marker_annotation name: (identifier) @route.annotation)])) @route
 (#any-of? @route.annotation "RestController" "Controller" "RequestMapping"))
