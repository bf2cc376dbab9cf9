"""Small applications written the way each framework's users write them, with the routes a
reader finds in them: (method, full path, handler qualified name or None for an inline one).

Each app exercises what makes routes hard to read: prefixes on routers, routers mounted from
other files, class-level prefixes, nested resources, path parameters, method lists, and
calls that look like routes but are not (HTTP clients, maps, tests).
"""

from __future__ import annotations

Route = tuple[str, str, "str | None"]

FLASK = {
    "shop/__init__.py": """
        from flask import Flask

        from .users import bp as users_bp
        from . import orders


        def create_app():
            app = Flask(__name__)
            app.register_blueprint(users_bp, url_prefix="/api")
            app.register_blueprint(orders.bp)

            @app.route("/health")
            def health():
                return {"ok": True}

            app.add_url_rule("/version", view_func=version)
            return app


        def version():
            return "1.0"
    """,
    "shop/users.py": """
        from flask import Blueprint, request

        from .db import load_user, save_user

        bp = Blueprint("users", __name__, url_prefix="/users")


        @bp.route("/<int:user_id>", methods=["GET", "DELETE"])
        def user(user_id):
            return load_user(user_id)


        @bp.post("/")
        def create():
            return save_user(request.json)
    """,
    "shop/orders.py": """
        from flask import Blueprint
        import requests

        bp = Blueprint("orders", __name__, url_prefix="/orders")


        @bp.get("/<order_id>")
        def show(order_id):
            requests.get("/internal/audit")  # a client call, not a route
            return {}
    """,
    "shop/db.py": """
        def load_user(user_id):
            return {"id": user_id}


        def save_user(data):
            return data
    """,
}
FLASK_ROUTES: list[Route] = [
    ("GET", "/api/users/<int:user_id>", "shop/users.py::user"),
    ("DELETE", "/api/users/<int:user_id>", "shop/users.py::user"),
    ("POST", "/api/users/", "shop/users.py::create"),
    ("GET", "/orders/<order_id>", "shop/orders.py::show"),
    ("GET", "/health", "shop/__init__.py::create_app.health"),
    ("GET", "/version", "shop/__init__.py::version"),
]

FASTAPI = {
    "api/main.py": """
        from fastapi import FastAPI

        from api.routers import items, users

        app = FastAPI()
        app.include_router(users.router)
        app.include_router(items.router, prefix="/v1")


        @app.get("/")
        async def root():
            return {"message": "hello"}
    """,
    "api/routers/users.py": """
        from fastapi import APIRouter

        router = APIRouter(prefix="/users", tags=["users"])


        @router.get("/")
        async def list_users():
            return []


        @router.get("/{user_id}")
        async def get_user(user_id: int):
            return {"id": user_id}
    """,
    "api/routers/items.py": """
        from fastapi import APIRouter, Depends

        router = APIRouter(prefix="/items")


        @router.put("/{item_id}")
        async def update_item(item_id: str, item: dict):
            return item


        @router.api_route("/{item_id}/tags", methods=["GET", "POST"])
        async def item_tags(item_id: str):
            return []


        def helper():
            return Depends()
    """,
}
FASTAPI_ROUTES: list[Route] = [
    ("GET", "/", "api/main.py::root"),
    ("GET", "/users/", "api/routers/users.py::list_users"),
    ("GET", "/users/{user_id}", "api/routers/users.py::get_user"),
    ("PUT", "/v1/items/{item_id}", "api/routers/items.py::update_item"),
    ("GET", "/v1/items/{item_id}/tags", "api/routers/items.py::item_tags"),
    ("POST", "/v1/items/{item_id}/tags", "api/routers/items.py::item_tags"),
]

DJANGO = {
    "mysite/urls.py": """
        from django.contrib import admin
        from django.urls import include, path

        from . import views

        urlpatterns = [
            path("", views.home, name="home"),
            path("blog/", include("blog.urls")),
            path("polls/", include(("polls.urls", "polls"), namespace="polls")),
        ]
    """,
    "mysite/views.py": """
        def home(request):
            return None
    """,
    "blog/urls.py": """
        from django.urls import path, re_path

        from . import views

        urlpatterns = [
            path("", views.index, name="index"),
            path("<int:year>/<slug:slug>/", views.ArticleDetail.as_view(), name="detail"),
            re_path(r"^archive/(?P<year>[0-9]{4})/$", views.archive),
        ]
    """,
    "blog/views.py": """
        def index(request):
            return None


        class ArticleDetail:
            def get(self, request, year, slug):
                return None


        def archive(request, year):
            return None
    """,
    "polls/urls.py": """
        from django.urls import path

        from .views import vote

        urlpatterns = [path("<int:question_id>/vote/", vote, name="vote")]
    """,
    "polls/views.py": """
        import os.path


        def vote(request, question_id):
            return os.path.join("a", "b")
    """,
}
DJANGO_ROUTES: list[Route] = [
    ("ANY", "/", "mysite/views.py::home"),
    ("ANY", "/blog/", "blog/views.py::index"),
    ("ANY", "/blog/<int:year>/<slug:slug>/", "blog/views.py::ArticleDetail"),
    ("ANY", "/blog/archive/(?P<year>[0-9]{4})/", "blog/views.py::archive"),
    ("ANY", "/polls/<int:question_id>/vote/", "polls/views.py::vote"),
]

EXPRESS = {
    "src/app.js": """
        const express = require('express');
        const users = require('./routes/users');
        const { listOrders, createOrder } = require('./controllers/orders');

        const app = express();
        app.use(express.json());
        app.use('/api/users', users);
        app.use('/admin', require('./routes/admin'));

        app.get('/health', (req, res) => res.send('ok'));
        app.route('/orders').get(listOrders).post(createOrder);

        module.exports = app;
    """,
    "src/routes/users.js": """
        const express = require('express');
        const router = express.Router();
        const ctrl = require('../controllers/users');

        router.get('/', ctrl.list);
        router.get('/:id', ctrl.show);
        router.delete('/:id', authenticate, ctrl.remove);

        function authenticate(req, res, next) { next(); }

        module.exports = router;
    """,
    "src/routes/admin.js": """
        import { Router } from 'express';
        import { stats } from '../controllers/admin';

        const router = Router();
        router.all('/stats', stats);

        export default router;
    """,
    "src/controllers/users.js": """
        function list(req, res) { res.json(findAll()); }
        function show(req, res) { res.json(findOne(req.params.id)); }
        function remove(req, res) { res.sendStatus(204); }
        function findAll() { return []; }
        function findOne(id) { return { id }; }
        module.exports = { list, show, remove };
    """,
    "src/controllers/orders.js": """
        export function listOrders(req, res) { res.json([]); }
        export function createOrder(req, res) { res.status(201).end(); }
    """,
    "src/controllers/admin.js": """
        export function stats(req, res) { res.json({}); }
    """,
    "src/client.js": """
        const http = require('http');
        const cache = new Map();
        cache.get('/cached');
        http.get('/remote/thing', (res) => res.resume());
    """,
}
EXPRESS_ROUTES: list[Route] = [
    ("GET", "/health", None),
    ("GET", "/orders", "src/controllers/orders.js::listOrders"),
    ("POST", "/orders", "src/controllers/orders.js::createOrder"),
    ("GET", "/api/users", "src/controllers/users.js::list"),
    ("GET", "/api/users/:id", "src/controllers/users.js::show"),
    ("DELETE", "/api/users/:id", "src/controllers/users.js::remove"),
    ("ANY", "/admin/stats", "src/controllers/admin.js::stats"),
]

KOA = {
    "server/index.ts": """
        import Koa from 'koa';
        import Router from '@koa/router';
        import { booksRouter } from './books';

        const app = new Koa();
        const api = new Router({ prefix: '/api' });

        api.use('/books', booksRouter.routes());
        app.use(api.routes());
        app.use(api.allowedMethods());
    """,
    "server/books.ts": """
        import Router from '@koa/router';

        export const booksRouter = new Router();

        booksRouter.get('/', listBooks);
        booksRouter.get('/:isbn', getBook);
        booksRouter.post('/', async (ctx) => { ctx.status = 201; });

        async function listBooks(ctx: any) { ctx.body = []; }
        async function getBook(ctx: any) { ctx.body = { isbn: ctx.params.isbn }; }
    """,
}
KOA_ROUTES: list[Route] = [
    ("GET", "/api/books", "server/books.ts::listBooks"),
    ("GET", "/api/books/:isbn", "server/books.ts::getBook"),
    ("POST", "/api/books", None),
]

GO_NET_HTTP = {
    "go.mod": "module example.com/notes\n\ngo 1.22\n",
    "cmd/server/main.go": """
        package main

        import (
            "net/http"

            "example.com/notes/internal/handlers"
        )

        func main() {
            mux := http.NewServeMux()
            mux.HandleFunc("GET /notes/{id}", handlers.GetNote)
            mux.HandleFunc("POST /notes", handlers.CreateNote)
            mux.Handle("/static/", http.HandlerFunc(serveStatic))
            http.HandleFunc("/healthz", healthz)
            http.ListenAndServe(":8080", mux)
        }

        func healthz(w http.ResponseWriter, r *http.Request) {}

        func serveStatic(w http.ResponseWriter, r *http.Request) {}
    """,
    "internal/handlers/notes.go": """
        package handlers

        import "net/http"

        func GetNote(w http.ResponseWriter, r *http.Request) { load(r.PathValue("id")) }

        func CreateNote(w http.ResponseWriter, r *http.Request) {}

        func load(id string) string { return id }
    """,
}
GO_NET_HTTP_ROUTES: list[Route] = [
    ("GET", "/notes/{id}", "internal/handlers/notes.go::GetNote"),
    ("POST", "/notes", "internal/handlers/notes.go::CreateNote"),
    ("ANY", "/static/", "cmd/server/main.go::serveStatic"),
    ("ANY", "/healthz", "cmd/server/main.go::healthz"),
]

GIN = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "main.go": """
        package main

        import "github.com/gin-gonic/gin"

        type Server struct{ db string }

        func (s *Server) routes(r *gin.Engine) {
            r.GET("/ping", s.ping)
            v1 := r.Group("/api/v1")
            {
                v1.GET("/products/:id", s.getProduct)
                admin := v1.Group("/admin")
                admin.DELETE("/products/:id", s.deleteProduct)
            }
            r.Handle("PATCH", "/products/:id", s.patchProduct)
            r.Group("/legacy").Any("/*path", legacy)
        }

        func (s *Server) ping(c *gin.Context)          {}
        func (s *Server) getProduct(c *gin.Context)    { s.find(c.Param("id")) }
        func (s *Server) deleteProduct(c *gin.Context) {}
        func (s *Server) patchProduct(c *gin.Context)  {}
        func (s *Server) find(id string) string        { return id }

        func legacy(c *gin.Context) {}
    """,
}
GIN_ROUTES: list[Route] = [
    ("GET", "/ping", "main.go::Server.ping"),
    ("GET", "/api/v1/products/:id", "main.go::Server.getProduct"),
    ("DELETE", "/api/v1/admin/products/:id", "main.go::Server.deleteProduct"),
    ("PATCH", "/products/:id", "main.go::Server.patchProduct"),
    ("ANY", "/legacy/*path", "main.go::legacy"),
]

ECHO = {
    "go.mod": "module example.com/blog\n\ngo 1.22\n",
    "server.go": """
        package main

        import (
            "net/http"

            "github.com/labstack/echo/v4"
        )

        func main() {
            e := echo.New()
            e.GET("/posts", listPosts)
            g := e.Group("/admin")
            g.POST("/posts", createPost)
            g.PUT("/posts/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
            e.Add("DELETE", "/posts/:id", deletePost)
            e.Logger.Fatal(e.Start(":1323"))
        }

        func listPosts(c echo.Context) error  { return nil }
        func createPost(c echo.Context) error { return nil }
        func deletePost(c echo.Context) error { return nil }
    """,
}
ECHO_ROUTES: list[Route] = [
    ("GET", "/posts", "server.go::listPosts"),
    ("POST", "/admin/posts", "server.go::createPost"),
    ("PUT", "/admin/posts/:id", None),
    ("DELETE", "/posts/:id", "server.go::deletePost"),
]

SPRING = {
    "src/main/java/com/acme/web/OwnerController.java": """
        package com.acme.web;

        import org.springframework.web.bind.annotation.*;

        @RestController
        @RequestMapping("/api/owners")
        public class OwnerController {
            private final OwnerService service;

            OwnerController(OwnerService service) { this.service = service; }

            @GetMapping
            public List<Owner> list() { return service.all(); }

            @GetMapping("/{ownerId}")
            public Owner show(@PathVariable int ownerId) { return service.find(ownerId); }

            @PostMapping(value = "/{ownerId}/pets")
            public Pet addPet(@PathVariable int ownerId, @RequestBody Pet pet) { return pet; }

            @RequestMapping(path = {"/search", "/find"},
                            method = {RequestMethod.GET, RequestMethod.POST})
            public List<Owner> search(@RequestParam String q) { return service.all(); }

            private void notARoute() {}
        }
    """,
    "src/main/java/com/acme/web/VetController.java": """
        package com.acme.web;

        import org.springframework.stereotype.Controller;
        import org.springframework.web.bind.annotation.DeleteMapping;

        @Controller
        class VetController {
            @DeleteMapping("/vets/{id}")
            String remove(@PathVariable int id) { return "redirect:/vets"; }
        }
    """,
    "src/main/java/com/acme/web/OwnerService.java": """
        package com.acme.web;

        public class OwnerService {
            public List<Owner> all() { return List.of(); }
            public Owner find(int id) { return null; }
        }
    """,
}
SPRING_ROUTES: list[Route] = [
    ("GET", "/api/owners", "src/main/java/com/acme/web/OwnerController.java::OwnerController.list"),
    (
        "GET",
        "/api/owners/{ownerId}",
        "src/main/java/com/acme/web/OwnerController.java::OwnerController.show",
    ),
    (
        "POST",
        "/api/owners/{ownerId}/pets",
        "src/main/java/com/acme/web/OwnerController.java::OwnerController.addPet",
    ),
    (
        "GET",
        "/api/owners/search",
        "src/main/java/com/acme/web/OwnerController.java::OwnerController.search",
    ),
    (
        "POST",
        "/api/owners/search",
        "src/main/java/com/acme/web/OwnerController.java::OwnerController.search",
    ),
    (
        "GET",
        "/api/owners/find",
        "src/main/java/com/acme/web/OwnerController.java::OwnerController.search",
    ),
    (
        "POST",
        "/api/owners/find",
        "src/main/java/com/acme/web/OwnerController.java::OwnerController.search",
    ),
    ("DELETE", "/vets/{id}", "src/main/java/com/acme/web/VetController.java::VetController.remove"),
]

RAILS = {
    "config/routes.rb": """
        Rails.application.routes.draw do
          root 'pages#home'
          get '/about', to: 'pages#about'
          get 'health' => 'health#show'

          resources :photos, only: [:index, :show] do
            member do
              get :preview
            end
            collection do
              get :search
            end
          end

          resources :magazines, only: [:show] do
            resources :ads, only: [:index, :create]
          end

          resource :profile, only: [:show, :update]

          namespace :admin do
            resources :users, except: [:new, :edit, :create, :update, :destroy]
          end

          scope '/api' do
            post 'webhooks/:provider', to: 'webhooks#receive'
          end
        end
    """,
    "app/controllers/pages_controller.rb": """
        class PagesController < ApplicationController
          def home; end
          def about; end
        end
    """,
    "app/controllers/health_controller.rb": """
        class HealthController < ApplicationController
          def show
            render json: { ok: true }
          end
        end
    """,
    "app/controllers/photos_controller.rb": """
        class PhotosController < ApplicationController
          def index; end
          def show; end
          def preview; end
          def search; end
        end
    """,
    "app/controllers/magazines_controller.rb": """
        class MagazinesController < ApplicationController
          def show; end
        end
    """,
    "app/controllers/ads_controller.rb": """
        class AdsController < ApplicationController
          def index; end
          def create; end
        end
    """,
    "app/controllers/profiles_controller.rb": """
        class ProfilesController < ApplicationController
          def show; end
          def update; end
        end
    """,
    "app/controllers/admin/users_controller.rb": """
        module Admin
          class UsersController < ApplicationController
            def index; end
            def show; end
          end
        end
    """,
    "app/controllers/users_controller.rb": """
        class UsersController < ApplicationController
          def index; end
        end
    """,
    "app/controllers/webhooks_controller.rb": """
        class WebhooksController < ApplicationController
          def receive; end
        end
    """,
}
_C = "app/controllers/"
RAILS_ROUTES: list[Route] = [
    ("GET", "/", _C + "pages_controller.rb::PagesController.home"),
    ("GET", "/about", _C + "pages_controller.rb::PagesController.about"),
    ("GET", "/health", _C + "health_controller.rb::HealthController.show"),
    ("GET", "/photos", _C + "photos_controller.rb::PhotosController.index"),
    ("GET", "/photos/:id", _C + "photos_controller.rb::PhotosController.show"),
    ("GET", "/photos/:id/preview", _C + "photos_controller.rb::PhotosController.preview"),
    ("GET", "/photos/search", _C + "photos_controller.rb::PhotosController.search"),
    ("GET", "/magazines/:id", _C + "magazines_controller.rb::MagazinesController.show"),
    ("GET", "/magazines/:magazine_id/ads", _C + "ads_controller.rb::AdsController.index"),
    ("POST", "/magazines/:magazine_id/ads", _C + "ads_controller.rb::AdsController.create"),
    ("GET", "/profile", _C + "profiles_controller.rb::ProfilesController.show"),
    ("PATCH", "/profile", _C + "profiles_controller.rb::ProfilesController.update"),
    ("PUT", "/profile", _C + "profiles_controller.rb::ProfilesController.update"),
    ("GET", "/admin/users", _C + "admin/users_controller.rb::Admin.UsersController.index"),
    ("GET", "/admin/users/:id", _C + "admin/users_controller.rb::Admin.UsersController.show"),
    ("POST", "/api/webhooks/:provider", _C + "webhooks_controller.rb::WebhooksController.receive"),
]

APPS: dict[str, tuple[dict[str, str], list[Route]]] = {
    "flask": (FLASK, FLASK_ROUTES),
    "fastapi": (FASTAPI, FASTAPI_ROUTES),
    "django": (DJANGO, DJANGO_ROUTES),
    "express": (EXPRESS, EXPRESS_ROUTES),
    "koa": (KOA, KOA_ROUTES),
    "net/http": (GO_NET_HTTP, GO_NET_HTTP_ROUTES),
    "gin": (GIN, GIN_ROUTES),
    "echo": (ECHO, ECHO_ROUTES),
    "spring": (SPRING, SPRING_ROUTES),
    "rails": (RAILS, RAILS_ROUTES),
}

#: A handler whose calls make a tree: a service calling two helpers (one calls a third), a
#: recursive helper, a helper reached twice, and a method called on a fresh instance.
ORDERS = {
    "shop/__init__.py": "",
    "shop/app.py": """\
        from flask import Flask

        from shop.audit import log_event
        from shop.policy import RefundPolicy
        from shop.service import place_order

        app = Flask(__name__)


        @app.post("/orders")
        def create_order():
            order = place_order({"sku": 1})
            amount = (
                RefundPolicy(strict=True)
                .refund_amount(order)
            )
            log_event("created")
            return {"amount": amount}
        """,
    "shop/service.py": """\
        from shop.audit import log_event


        def place_order(order):
            validate(order)
            total = price(order)
            log_event("placed")
            return total


        def validate(order):
            if order.get("parent"):
                validate(order["parent"])
            return order


        def price(order):
            return apply_tax(order["sku"] * 10)


        def apply_tax(amount):
            return amount * 12 // 10
        """,
    "shop/policy.py": """\
        class RefundPolicy:
            def __init__(self, strict=False):
                self.strict = strict

            def refund_amount(self, order):
                if self.within_window(order):
                    return order
                return 0

            def within_window(self, order):
                return not self.strict
        """,
    "shop/audit.py": """\
        def log_event(name):
            return name
        """,
}
