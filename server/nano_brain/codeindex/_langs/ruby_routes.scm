;; Ruby route declarations (Rails `routes.draw do ... end`), read by codeindex/_langs/ruby_routes.py.
;; The block is captured; its DSL (resources, namespace, scope, get, ...) is read from it.
((call method: (identifier) @route.verb block: (do_block) @route.body) @route
 (#eq? @route.verb "draw"))
