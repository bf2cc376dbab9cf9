"""Call resolution: each rule binds what it should, and ambiguity stays unresolved."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from nano_brain.codeindex import CodeGraph
from nano_brain.errors import InvalidInputError, NotFoundError

GraphOf = Callable[..., CodeGraph]


def resolved(graph: CodeGraph, caller: str) -> dict[str, tuple[str | None, str]]:
    """callee text -> (target, how) for the calls made inside ``caller``."""
    return {r.site.callee: (r.target, r.how) for r in graph.callees(caller)}


PYTHON = {
    "pkg/__init__.py": "from .core import Engine\n",
    "pkg/util.py": "def helper():\n    pass\n\ndef dup():\n    pass\n",
    "pkg/core.py": """\
        from .util import helper
        from . import util
        import pkg.util as U
        import pkg.util


        class Base:
            def start(self):
                self.stop()

            def stop(self):
                pass


        class Engine(Base):
            def run(self):
                self.start()
                helper()
                util.helper()
                U.helper()
                pkg.util.dup()
                local()
                self.missing()
                obj.start()
                super().stop()

            def go(self):
                self.run()

                def cb():
                    return self.run()

                return cb()


        def local():
            helper()
        """,
    "app.py": """\
        from pkg import Engine


        def main():
            return Engine()


        main()
        """,
}


def test_python_rules(graph_of: GraphOf) -> None:
    g = graph_of(PYTHON)
    calls = resolved(g, "pkg/core.py::Engine.run")
    assert calls == {
        "self.start": ("pkg/core.py::Base.start", "inherited"),
        "helper": ("pkg/util.py::helper", "import"),
        "util.helper": ("pkg/util.py::helper", "module"),
        "U.helper": ("pkg/util.py::helper", "module"),
        "pkg.util.dup": ("pkg/util.py::dup", "module"),
        "local": ("pkg/core.py::local", "local"),
        "self.missing": (None, "unresolved"),
        "obj.start": (None, "unresolved"),
        "super().stop": ("pkg/core.py::Base.stop", "super"),
        "super": (None, "unresolved"),
    }
    assert resolved(g, "pkg/core.py::Base.start") == {
        "self.stop": ("pkg/core.py::Base.stop", "self")
    }
    # self inside a nested function is still the method's instance
    assert resolved(g, "pkg/core.py::Engine.go.cb") == {
        "self.run": ("pkg/core.py::Engine.run", "self")
    }
    assert resolved(g, "pkg/core.py::Engine.go")["cb"] == ("pkg/core.py::Engine.go.cb", "nested")
    # re-exported through the package __init__
    assert resolved(g, "app.py::main") == {"Engine": ("pkg/core.py::Engine", "import")}


def test_a_call_on_what_super_returns_is_not_a_call_of_the_base(graph_of: GraphOf) -> None:
    g = graph_of(
        {
            "a.py": """\
                class Base:
                    def path(self):
                        return "/a"

                    def strip(self):
                        pass


                class Child(Base):
                    def path(self):
                        super(Child, self).strip()
                        return super().path().strip()
                """
        }
    )
    assert resolved(g, "a.py::Child.path") == {
        "super(Child, self).strip": ("a.py::Base.strip", "super"),
        "super().path": ("a.py::Base.path", "super"),
        "super().path().strip": (None, "unresolved"),  # a str's strip, not Base.strip
        "super": (None, "unresolved"),
    }


def test_bindings_are_the_references_targets(graph_of: GraphOf) -> None:
    """The indexer's bindings() (no Reference objects) says what resolve_sites() does."""
    full = graph_of(PYTHON)
    sites = [r.site for r in full.references]
    assert len(sites) > 10 and any(r.resolved for r in full.references)
    bare = CodeGraph(full.files.values(), resolve_all=False)
    assert bare.references == []
    assert bare.bindings(sites) == [(r.target, r.how) for r in full.references]


def test_callers_callees_and_impact(graph_of: GraphOf) -> None:
    g = graph_of(PYTHON)
    callers = g.callers("pkg/util.py::helper")
    assert sorted((r.caller_key, r.site.line) for r in callers) == [
        ("pkg/core.py::Engine.run", 18),
        ("pkg/core.py::Engine.run", 19),
        ("pkg/core.py::Engine.run", 20),
        ("pkg/core.py::local", 37),
    ]
    assert [r.site.callee for r in g.callees("pkg/core.py::local")] == ["helper"]
    unresolved = g.callees("pkg/core.py::Engine.run", include_unresolved=False)
    assert all(r.resolved for r in unresolved) and len(unresolved) == 7
    impact = {e.qualified_name: e.depth for e in g.impact("pkg/util.py::helper", depth=3)}
    assert impact == {
        "pkg/core.py::Engine.run": 1,
        "pkg/core.py::local": 1,
        "pkg/core.py::Engine.go": 2,
        "pkg/core.py::Engine.go.cb": 2,
    }
    assert {e.qualified_name for e in g.impact("pkg/util.py::helper", depth=1)} == {
        "pkg/core.py::Engine.run",
        "pkg/core.py::local",
    }
    # top-level code shows up as the file's module pseudo-symbol
    assert [(e.qualified_name, e.depth) for e in g.impact("app.py::main")] == [
        ("app.py::<module>", 1)
    ]
    with pytest.raises(NotFoundError):
        g.callers("nope.py::x")
    with pytest.raises(InvalidInputError):
        g.impact("app.py::main", depth=0)


def test_ambiguous_and_unknown_calls_are_never_confident(graph_of: GraphOf) -> None:
    g = graph_of(
        {
            "lib/util.py": "def helper():\n    pass\n",
            "lib/__init__.py": "",
            "both.py": """\
                from lib.util import helper


                def helper():
                    pass


                def use():
                    helper()
                """,
            "a/x.py": "def f():\n    pass\n",
            "b/x.py": "def f():\n    pass\n",
            "shadow.py": """\
                import x
                import requests


                class One:
                    def save(self):
                        pass


                class Two:
                    def save(self):
                        pass


                class Child(External):
                    def m(self):
                        self.save()


                def use(obj):
                    obj.save()
                    x.f()
                    requests.get()
                    save()
                """,
        }
    )
    use = {r.site.callee: r for r in g.callees("both.py::use")}
    assert use["helper"].target is None and use["helper"].how == "ambiguous"
    assert use["helper"].candidates == ("both.py::helper", "lib/util.py::helper")
    assert g.callers("lib/util.py::helper") == []
    assert g.callers("both.py::helper") == []
    assert [r.caller_key for r in g.possible_callers("lib/util.py::helper")] == ["both.py::use"]
    shadow = resolved(g, "shadow.py::use")
    assert shadow == {
        "obj.save": (None, "unresolved"),  # two classes define save(): type unknown
        "x.f": (None, "unresolved"),  # two top-level x.py modules
        "requests.get": (None, "unresolved"),  # outside the workspace
        "save": (None, "unresolved"),
    }
    # the method may come from the unknown base class
    assert resolved(g, "shadow.py::Child.m") == {"self.save": (None, "unresolved")}
    assert g.callers("shadow.py::One.save") == [] and g.callers("shadow.py::Two.save") == []


def test_javascript_typescript_imports(graph_of: GraphOf) -> None:
    g = graph_of(
        {
            "src/util.ts": "export function fmt() {}\nexport default class Logger { log() {} }\n",
            "src/base.ts": "export class Base { hello() {} }\n",
            "src/index.ts": "export { fmt } from './util';\n",
            "src/io.js": "function read() {}\nmodule.exports = { read };\n",
            "src/app.ts": """\
                import Logger, { fmt as format } from './util';
                import * as U from './util';
                import { Base } from './base';
                import { fmt as f2 } from './index';
                const lodash = require('lodash');
                const io = require('./io');
                const { read } = require('./io.js');

                class App extends Base {
                  run() {
                    format(); U.fmt(); this.hello(); new Logger(); f2();
                    lodash.map(); io.read(); read(); this.nope(); App.make();
                  }
                  static make() {}
                }
                """,
        }
    )
    assert resolved(g, "src/app.ts::App.run") == {
        "format": ("src/util.ts::fmt", "import"),
        "U.fmt": ("src/util.ts::fmt", "module"),
        "this.hello": ("src/base.ts::Base.hello", "inherited"),
        "Logger": ("src/util.ts::Logger", "import"),  # default import
        "f2": ("src/util.ts::fmt", "import"),  # through a re-export
        "lodash.map": (None, "unresolved"),  # a package, not in the workspace
        "io.read": ("src/io.js::read", "module"),
        "read": ("src/io.js::read", "import"),
        "this.nope": (None, "unresolved"),
        "App.make": ("src/app.ts::App.make", "static"),
    }


GO_FILES = {
    "util/util.go": "package util\n\nfunc Do() {}\n\nfunc helper() {}\n",
    "util/more.go": "package util\n\nfunc Other() { helper() }\n",
    "server/server.go": """\
        package server

        import (
        \t"fmt"
        \tu "example.com/m/util"
        )

        type Server struct{}

        func (s *Server) Start() { s.stop(); u.Do(); fmt.Println(); s.nope() }
        """,
    "server/stop.go": "package server\n\nfunc (srv *Server) stop() {}\n",
    "tags/a.go": "package tags\n\nfunc Pick() {}\n\nfunc Use() { Pick() }\n",
    "tags/b.go": "package tags\n\nfunc Pick() {}\n",
}


@pytest.mark.parametrize("go_modules", [{"": "example.com/m"}, None])
def test_go_package_rules(graph_of: GraphOf, go_modules: dict[str, str] | None) -> None:
    g = graph_of(GO_FILES, go_modules=go_modules)
    assert resolved(g, "server/server.go::Server.Start") == {
        "s.stop": ("server/stop.go::Server.stop", "self"),  # method in another file
        "u.Do": ("util/util.go::Do", "module"),
        "fmt.Println": (None, "unresolved"),
        "s.nope": (None, "unresolved"),
    }
    assert resolved(g, "util/more.go::Other") == {"helper": ("util/util.go::helper", "package")}
    # two definitions in one package (build tags): ambiguous
    pick = g.callees("tags/a.go::Use")[0]
    assert pick.target is None and pick.how == "ambiguous"


def test_rust_paths(graph_of: GraphOf) -> None:
    g = graph_of(
        {
            "src/util.rs": "pub fn helper() {}\n",
            "src/lib.rs": """\
                mod util;
                use crate::util::helper;
                pub struct P;
                impl P {
                    pub fn new() -> P { P }
                    fn go(&self) {
                        helper(); Self::new(); P::new(); inner::deep();
                        crate::util::helper(); self.go(); other.go();
                    }
                }
                mod inner { pub fn deep() {} }
                """,
        }
    )
    assert resolved(g, "src/lib.rs::P.go") == {
        "helper": ("src/util.rs::helper", "import"),
        "Self::new": ("src/lib.rs::P.new", "self"),
        "P::new": ("src/lib.rs::P.new", "static"),
        "inner::deep": ("src/lib.rs::inner.deep", "static"),
        "crate::util::helper": ("src/util.rs::helper", "module"),
        "self.go": ("src/lib.rs::P.go", "self"),
        "other.go": (None, "unresolved"),
    }


def test_java_rules(graph_of: GraphOf) -> None:
    g = graph_of(
        {
            "src/com/acme/util/Util.java": (
                "package com.acme.util;\npublic class Util { public static void go() {} }\n"
            ),
            "src/com/acme/util/Maths.java": (
                "package com.acme.util;\n"
                "public class Maths { public static int square(int x) { return x; } }\n"
            ),
            "src/com/acme/Base.java": "package com.acme;\npublic class Base { void hello() {} }\n",
            "src/com/acme/Helper.java": "package com.acme;\nclass Helper {}\n",
            "src/com/acme/A.java": """\
                package com.acme;
                import com.acme.util.Util;
                import static com.acme.util.Maths.square;
                public class A extends Base {
                  void m() { n(); this.hello(); Util.go(); square(2); new Helper(); other.n(); }
                  void n() {}
                  class Inner { void i() { n(); } }
                }
                """,
        }
    )
    assert resolved(g, "src/com/acme/A.java::A.m") == {
        "n": ("src/com/acme/A.java::A.n", "self"),  # implicit this
        "this.hello": ("src/com/acme/Base.java::Base.hello", "inherited"),
        "Util.go": ("src/com/acme/util/Util.java::Util.go", "static"),
        "square": ("src/com/acme/util/Maths.java::Maths.square", "import"),
        "Helper": ("src/com/acme/Helper.java::Helper", "package"),
        "other.n": (None, "unresolved"),
    }
    # an inner class sees the outer class's methods
    assert resolved(g, "src/com/acme/A.java::A.Inner.i") == {
        "n": ("src/com/acme/A.java::A.n", "self")
    }


def test_ruby_self_and_same_file(graph_of: GraphOf) -> None:
    g = graph_of(
        {
            "app/cart.rb": """\
                class Cart
                  def add(item)
                    total
                    total(1)
                    self.check
                    helper(item)
                    item.save
                  end

                  def total(n = 0); end

                  def check; end
                end

                def helper(x); end
                """
        }
    )
    assert resolved(g, "app/cart.rb::Cart.add") == {
        "total": ("app/cart.rb::Cart.total", "self"),
        "self.check": ("app/cart.rb::Cart.check", "self"),
        "helper": ("app/cart.rb::helper", "local"),
        "item.save": (None, "unresolved"),
    }


def test_find_symbols_and_stats(graph_of: GraphOf) -> None:
    g = graph_of(PYTHON)
    assert [s.qualified_name for s in g.find_symbols("Engine.run")] == ["pkg/core.py::Engine.run"]
    assert [s.qualified_name for s in g.find_symbols("helper")] == ["pkg/util.py::helper"]
    assert g.find_symbols("Engine", kind="function") == []
    assert g.find_symbols("pkg/core.py::local")[0].kind == "function"
    stats = g.stats()
    assert stats["files"] == 4 and stats["resolved"] > 0 and stats["calls"] > stats["resolved"]
