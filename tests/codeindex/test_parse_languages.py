"""Symbol kinds, docs, qualified names, imports and calls for every non-Python language."""

from __future__ import annotations

from nano_brain.codeindex import ImportEdge

from .conftest import by_name, parse


def kinds(index: object) -> dict[str, str]:
    return {name: s.kind for name, s in by_name(index).items()}  # type: ignore[arg-type]


def calls_of(index: object) -> set[tuple[str | None, str, str | None, str]]:
    return {(c.caller, c.callee, c.receiver, c.receiver_kind) for c in index.calls}  # type: ignore[attr-defined]


TS = """\
import def, { a as b, c } from './m';
import * as ns from "../n";
import './side-effect';
const r = require('./r');
const { x, y: z } = require('./q');

/** Adds one. */
export function f(a: number): string { return g(a); }

// The C class.
export default class C extends D implements I {
  /** Method m. */
  m() { this.n(); super.m(); ns.q(); }
  static s() {}
}
interface I { q(): void; }
type T = string;
enum E { A }
export const K = 1, h = (a) => a + 1;
let v = function named() {};
namespace NS { export function w() {} }
abstract class Ab { abstract z(): void; }
new C();
"""


def test_typescript_symbols_docs_and_default_export() -> None:
    index = parse("src/a.ts", TS)
    assert kinds(index) == {
        "f": "function", "C": "class", "C.m": "method", "C.s": "method",
        "I": "interface", "I.q": "method", "T": "type", "E": "enum",
        "K": "constant", "h": "function", "v": "function",
        "NS": "module", "NS.w": "function", "Ab": "class", "Ab.z": "method",
    }  # fmt: skip
    syms = by_name(index)
    assert syms["f"].docstring == "Adds one."
    assert syms["f"].signature == "function f(a: number): string"
    assert syms["C"].docstring == "The C class."
    assert syms["C.m"].docstring == "Method m."
    assert syms["C"].bases == ("D",)
    assert syms["h"].signature == "const h = (a) =>"
    assert "r" not in syms  # a require binding is an import, not a symbol
    assert index.default_export == "C"
    assert syms["C.m"].qualified_name == "src/a.ts::C.m"


def test_typescript_imports_and_calls() -> None:
    index = parse("src/a.ts", TS)
    assert [(i.module, i.name, i.alias, i.line) for i in index.imports] == [
        ("./m", "default", "def", 1),
        ("./m", "a", "b", 1),
        ("./m", "c", None, 1),
        ("../n", "*", "ns", 2),
        ("./side-effect", "", None, 3),
        ("./r", None, "r", 4),
        ("./q", "x", None, 5),
        ("./q", "y", "z", 5),
    ]
    assert [i.local_name for i in index.imports] == ["def", "b", "c", "ns", None, "r", "x", "z"]
    assert {
        ("src/a.ts::f", "g", None, "none"),
        ("src/a.ts::C.m", "this.n", "this", "self"),
        ("src/a.ts::C.m", "super.m", "super", "super"),
        ("src/a.ts::C.m", "ns.q", "ns", "other"),
        (None, "C", None, "none"),  # `new C()` is a call to C
    } <= calls_of(index)


def test_javascript_and_tsx() -> None:
    js = parse(
        "web/app.js",
        """\
        const { read } = require('./io');
        /**
         * Loads it.
         */
        async function load(path) { return read(path); }
        class Store extends Base { get(k) { return this.load(k); } }
        module.exports = { load };
        """,
    )
    assert kinds(js) == {"load": "function", "Store": "class", "Store.get": "method"}
    assert by_name(js)["load"].docstring == "Loads it."
    assert ImportEdge("web/app.js", "./io", "read", None, 1) in js.imports
    assert ("web/app.js::Store.get", "this.load", "this", "self") in calls_of(js)
    tsx = parse(
        "web/View.tsx",
        """\
        export const View = (props: Props) => <div>{format(props.x)}</div>;
        export function Other() { return <View x={1} />; }
        """,
    )
    assert not tsx.has_errors
    assert kinds(tsx) == {"View": "function", "Other": "function"}
    assert ("web/View.tsx::View", "format", None, "none") in calls_of(tsx)


GO = """\
package server

import (
\t"fmt"
\tu "example.com/m/util"
)

// Server serves.
type Server struct{ n int }

// Reader reads.
type Reader interface {
\t// Read one thing.
\tRead() error
}

type ID = string

const Max = 3

var (
\tcount int
)

// Start starts the server.
func (s *Server) Start() { s.stop(); u.Do(); fmt.Println() }

func (s Server) stop() {}

func New() *Server { return &Server{} }
"""


def test_go_symbols_methods_docs_and_package() -> None:
    index = parse("srv/server.go", GO)
    assert kinds(index) == {
        "Server": "struct", "Reader": "interface", "Reader.Read": "method", "ID": "type",
        "Max": "constant", "count": "variable", "Server.Start": "method",
        "Server.stop": "method", "New": "function",
    }  # fmt: skip
    syms = by_name(index)
    assert syms["Server.Start"].parent == "srv/server.go::Server"
    assert syms["Server.Start"].docstring == "Start starts the server."
    assert syms["Server.Start"].signature == "func (s *Server) Start()"
    assert syms["Server"].docstring == "Server serves."
    assert syms["Reader.Read"].docstring == "Read one thing."
    assert syms["Max"].signature == "const Max = 3"
    assert index.namespace == "server"
    assert [(i.module, i.alias, i.local_name) for i in index.imports] == [
        ("fmt", None, "fmt"),
        ("example.com/m/util", "u", "u"),
    ]
    assert {
        ("srv/server.go::Server.Start", "s.stop", "s", "self"),  # the receiver's name
        ("srv/server.go::Server.Start", "u.Do", "u", "other"),
    } <= calls_of(index)


RUST = """\
use crate::util::{helper, other as o};
use super::m::*;

/// A point.
/// Two lines.
#[derive(Debug)]
pub struct P { x: i32 }
enum E { A }
trait T { fn f(&self); fn g(&self) {} }
type Alias = i32;
const C: i32 = 1;
static S: i32 = 1;
mod inner { pub fn h() {} }
impl<X> T for P<X> {
    /// F doc.
    fn f(&self) { self.g(); helper(); P::new(); Self::new(); inner::h(); }
}
macro_rules! mac { () => {} }
"""


def test_rust_symbols_impl_methods_docs_and_use_trees() -> None:
    index = parse("src/lib.rs", RUST)
    assert kinds(index) == {
        "P": "struct", "E": "enum", "T": "trait", "T.f": "method", "T.g": "method",
        "Alias": "type", "C": "constant", "S": "constant", "inner": "module",
        "inner.h": "function", "P.f": "method", "mac": "macro",
    }  # fmt: skip
    syms = by_name(index)
    assert syms["P"].docstring == "A point.\nTwo lines."  # through the attribute
    assert syms["P.f"].docstring == "F doc."
    assert syms["P.f"].parent == "src/lib.rs::P"
    assert [(i.module, i.name, i.alias) for i in index.imports] == [
        ("crate::util", "helper", None),
        ("crate::util", "other", "o"),
        ("super::m", "*", None),
    ]
    assert {
        ("src/lib.rs::P.f", "self.g", "self", "self"),
        ("src/lib.rs::P.f", "helper", None, "none"),
        ("src/lib.rs::P.f", "P::new", "P", "other"),
        ("src/lib.rs::P.f", "Self::new", "Self", "self"),
    } <= calls_of(index)


JAVA = """\
package com.acme;

import com.acme.util.Util;
import static com.acme.util.Maths.square;
import com.other.*;

/** The A class. */
@Annotated
public class A extends Base<String> implements I {
  /** Upper bound. */
  static final int MAX = 1, MIN = 0;
  int notAConstant;
  A() {}
  // Runs it.
  void m() { this.n(); n(); Util.go(); new A(); super.m(); }
  void n() {}
  class Inner { void i() { n(); } }
}
interface I { int K = 2; void q(); }
enum E { X; void z() {} }
record R(int a) {}
@interface Q {}
"""


def test_java_symbols_docs_constants_and_package() -> None:
    index = parse("src/com/acme/A.java", JAVA)
    assert kinds(index) == {
        "A": "class", "A.MAX": "constant", "A.MIN": "constant", "A.A": "method",
        "A.m": "method", "A.n": "method", "A.Inner": "class", "A.Inner.i": "method",
        "I": "interface", "I.K": "constant", "I.q": "method", "E": "enum", "E.z": "method",
        "R": "class", "Q": "interface",
    }  # fmt: skip
    syms = by_name(index)
    assert syms["A"].docstring == "The A class."
    assert syms["A.MAX"].docstring == "Upper bound."
    assert syms["A.m"].docstring == "Runs it."
    assert syms["A.m"].signature == "void m()"
    assert syms["A"].bases == ("Base",)
    assert index.namespace == "com.acme"
    assert [(i.module, i.name) for i in index.imports] == [
        ("com.acme.util", "Util"),
        ("com.acme.util.Maths", "square"),
        ("com.other", "*"),
    ]
    assert {
        ("src/com/acme/A.java::A.m", "this.n", "this", "self"),
        ("src/com/acme/A.java::A.m", "n", None, "none"),
        ("src/com/acme/A.java::A.m", "Util.go", "Util", "other"),
        ("src/com/acme/A.java::A.m", "A", None, "none"),
        ("src/com/acme/A.java::A.m", "super.m", "super", "super"),
    } <= calls_of(index)


RUBY = """\
require 'json'
require_relative 'lib/helpers'

# Namespace.
module Shop
  # A cart.
  class Cart < Base
    # Adds an item.
    def add(item)
      total(1)
      self.check
      item.save
    end

    def total(n); end

    def self.build; end
  end
end

LIMIT = 5

def helper(x)
  x
end
"""


def test_ruby_symbols_docs_and_requires() -> None:
    index = parse("app/cart.rb", RUBY)
    assert kinds(index) == {
        "Shop": "module", "Shop.Cart": "class", "Shop.Cart.add": "method",
        "Shop.Cart.total": "method", "Shop.Cart.build": "method", "LIMIT": "constant",
        "helper": "function",
    }  # fmt: skip
    syms = by_name(index)
    assert syms["Shop"].docstring == "Namespace."
    assert syms["Shop.Cart"].docstring == "A cart."
    assert syms["Shop.Cart.add"].docstring == "Adds an item."
    assert syms["Shop.Cart.total"].docstring is None  # the class comment is not reused
    assert syms["Shop.Cart"].bases == ("Base",)
    assert [(i.module, i.local_name) for i in index.imports] == [
        ("json", None),
        ("./lib/helpers", None),
    ]
    assert {
        ("app/cart.rb::Shop.Cart.add", "total", None, "none"),
        ("app/cart.rb::Shop.Cart.add", "self.check", "self", "self"),
        ("app/cart.rb::Shop.Cart.add", "item.save", "item", "other"),
    } <= calls_of(index)
