;; Go route declarations (net/http, Gin, Echo), read by codeindex/_langs/go_routes.py.
;; Every pattern captures its whole node as @route.

;; r.GET("/x", h), e.POST(...), mux.HandleFunc("GET /x/{id}", h), r.Handle("GET", "/x", h)
((call_expression
   function: (selector_expression operand: (_) @route.owner field: (field_identifier) @route.verb)
   arguments: (argument_list) @route.args) @route
 (#any-of? @route.verb
   "GET" "POST" "PUT" "DELETE" "PATCH" "HEAD" "OPTIONS" "CONNECT" "TRACE" "Any"
   "Handle" "HandleFunc" "Add"))

;; v1 := r.Group("/v1"); v1 = r.Group("/v1"); var v1 = r.Group("/v1")
((short_var_declaration
   left: (expression_list . (identifier) @route.var)
   right: (expression_list . (call_expression
     function: (selector_expression operand: (_) @route.owner field: (field_identifier) @route.verb)
     arguments: (argument_list) @route.args))) @route
 (#eq? @route.verb "Group"))
((assignment_statement
   left: (expression_list . (identifier) @route.var)
   right: (expression_list . (call_expression
     function: (selector_expression operand: (_) @route.owner field: (field_identifier) @route.verb)
     arguments: (argument_list) @route.args))) @route
 (#eq? @route.verb "Group"))
((var_spec
   name: (identifier) @route.var
   value: (expression_list . (call_expression
     function: (selector_expression operand: (_) @route.owner field: (field_identifier) @route.verb)
     arguments: (argument_list) @route.args))) @route
 (#eq? @route.verb "Group"))
