package main

// A tiny literal language for Go values, shared with the Rust tests:
//   nil  missing  true  false
//   5  -3  5i8 5i16 5i32 5i64 5u 5u8 5u16 5u32 5u64 5uptr   (integers; plain = int)
//   1.5  1e6  2f  +Inf  -Inf  NaN  -0.0                     (float64: has . or e, or suffix f)
//   "go quoted string"   b"bytes"
//   [a, b]  (a []interface{})   []string["a", "b"]   []int[1, 2]
//   {"k": v, "k2": v2}  (a map[string]interface{})
//   fn:name  (a Go func from a fixed set)
import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

type missingT struct{}

var missing = missingT{}

type parser struct {
	s string
	i int
}

func (p *parser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *parser) peek(pre string) bool { return strings.HasPrefix(p.s[p.i:], pre) }

var funcs = map[string]any{
	"add":  func(a, b int) int { return a + b },
	"fail": func() (string, error) { return "", errors.New("boom") },
	"join": func(s string, xs ...int) string { return fmt.Sprint(s, xs) },
	"two":  func(a string, b any) string { return fmt.Sprint(a, "/", b) },
	"i8":   func(a int8) int8 { return a },
	"lst":  func(a []any) int { return len(a) },
}

func (p *parser) value() any {
	p.ws()
	switch {
	case p.peek("nil"):
		p.i += 3
		return nil
	case p.peek("missing"):
		p.i += 7
		return missing
	case p.peek("true"):
		p.i += 4
		return true
	case p.peek("false"):
		p.i += 5
		return false
	case p.peek("+Inf"):
		p.i += 4
		return math.Inf(1)
	case p.peek("-Inf"):
		p.i += 4
		return math.Inf(-1)
	case p.peek("NaN"):
		p.i += 3
		return math.NaN()
	case p.peek("fn:"):
		p.i += 3
		j := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
			p.i++
		}
		return funcs[p.s[j:p.i]]
	case p.peek("\""):
		return p.str()
	case p.peek("b\""):
		p.i++
		return []byte(p.str())
	case p.peek("[]string["):
		p.i += 8
		var out []string
		for _, v := range p.list() {
			out = append(out, v.(string))
		}
		if out == nil {
			out = []string{}
		}
		return out
	case p.peek("[]int["):
		p.i += 5
		var out []int
		for _, v := range p.list() {
			out = append(out, v.(int))
		}
		if out == nil {
			out = []int{}
		}
		return out
	case p.peek("["):
		return p.list()
	case p.peek("{"):
		p.i++
		m := map[string]any{}
		for {
			p.ws()
			if p.peek("}") {
				p.i++
				return m
			}
			k := p.str()
			p.ws()
			if !p.peek(":") {
				panic("expected : at " + p.s[p.i:])
			}
			p.i++
			m[k] = p.value()
		}
	}
	return p.number()
}

func (p *parser) list() []any {
	if !p.peek("[") {
		panic("expected [ at " + p.s[p.i:])
	}
	p.i++
	out := []any{}
	for {
		p.ws()
		if p.peek("]") {
			p.i++
			return out[:len(out):len(out)] // capacity = length, as bosun's lists have
		}
		out = append(out, p.value())
	}
}

func (p *parser) str() string {
	j := p.i + 1
	for j < len(p.s) && p.s[j] != '"' {
		if p.s[j] == '\\' {
			j++
		}
		j++
	}
	s, err := strconv.Unquote(p.s[p.i : j+1])
	if err != nil {
		panic(fmt.Sprintf("bad string %q: %v", p.s[p.i:j+1], err))
	}
	p.i = j + 1
	return s
}

func (p *parser) number() any {
	j := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
		if (p.s[p.i] == '+' || p.s[p.i] == '-') && p.i > j && p.s[p.i-1] != 'e' && p.s[p.i-1] != 'E' {
			break
		}
		p.i++
	}
	num := p.s[j:p.i]
	k := p.i
	for p.i < len(p.s) && p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	suf := p.s[k:p.i]
	if num == "" {
		panic("bad literal at " + p.s[j:])
	}
	if suf == "f" || (suf == "" && strings.ContainsAny(num, ".eE")) {
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			panic(err)
		}
		return f
	}
	if strings.HasPrefix(suf, "u") {
		u, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			panic(err)
		}
		switch suf {
		case "u":
			return uint(u)
		case "u8":
			return uint8(u)
		case "u16":
			return uint16(u)
		case "u32":
			return uint32(u)
		case "u64":
			return u
		case "uptr":
			return uintptr(u)
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		panic(err)
	}
	switch suf {
	case "":
		return int(n)
	case "i8":
		return int8(n)
	case "i16":
		return int16(n)
	case "i32":
		return int32(n)
	case "i64":
		return n
	}
	panic("bad suffix " + suf)
}

func parseArgs(s string) []any {
	p := &parser{s: s}
	l := p.value().([]any)
	p.ws()
	if p.i != len(s) {
		panic("trailing input: " + s[p.i:])
	}
	return l
}
