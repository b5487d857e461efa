package fluxsubst

import (
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/capreport/capreport/render/internal/yamldoc"
	yamlv2 "go.yaml.in/yaml/v2"
)

// sameWays fails unless substituting vars into doc string by string, when
// that way takes it, gives what the whole printed text gives.
func sameWays(t *testing.T, doc map[string]any, vars map[string]string) (fast bool) {
	t.Helper()
	got, gotKept, ok := substituteFast(doc, vars)
	if !ok {
		return false
	}
	want, wantKept, err := substituteText(doc, vars)
	if err != nil {
		t.Fatalf("string by string gave %v; the whole text fails: %v", got, err)
	}
	if !reflect.DeepEqual(normal(got), normal(want)) || !maps.Equal(gotKept, wantKept) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("string by string:\n%s kept %v\nthe whole text:\n%s kept %v", g, gotKept, w, wantKept)
	}
	return true
}

// normal is v as JSON has it: a nil map or slice is null.
func normal(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return nil
		}
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = normal(x)
		}
		return m
	case []any:
		if t == nil {
			return nil
		}
		l := make([]any, len(t))
		for i, x := range t {
			l[i] = normal(x)
		}
		return l
	}
	return v
}

// The string-by-string way takes the objects a home-ops repository
// substitutes into, and gives what Flux's whole text gives: numbers and
// booleans a variable becomes, quoted and block strings, undefined
// variables kept, $$ escapes and defaults; it leaves to the whole way what
// it cannot be sure of.
func TestSubstituteFast(t *testing.T) {
	vars := map[string]string{"DOMAIN": "example.com", "REPLICAS": "3", "ON": "true", "EMPTY": "", "MAP": "{a: 1}", "COLON": "a: b", "HASH": "x # y", "QUOTE": `it's "q"`}
	for _, tc := range []struct {
		name, doc string
		fast      bool
	}{
		{"a host", "kind: X\nmetadata: {name: a}\nspec: {host: 'app.${DOMAIN}', n: 2, on: true, none: null}\n", true},
		{"a number", "kind: X\nspec: {replicas: '${REPLICAS}', list: ['${REPLICAS}', '${ON}']}\n", true},
		{"kept and defaults", "kind: X\nspec: {a: '${UNSET}', b: '${UNSET2:=d}', c: '$${DOMAIN}', d: 'x$y', e: '${EMPTY}'}\n", true},
		{"a flow map", "kind: X\nspec: {a: '${MAP}', b: ['${MAP}']}\n", true},
		{"a colon", "kind: X\nspec: {b: ['${COLON}']}\n", true},
		{"a comment", "kind: X\nspec: {a: '${HASH}', b: '\"${HASH}\"'}\n", true},
		{"quotes", "kind: X\nspec: {a: '${QUOTE}', b: \"'${DOMAIN}' x\"}\n", true},
		{"a quote in a quoted string", "kind: X\nspec: {b: \"'${QUOTE}'\"}\n", false},
		{"a colon as a value", "kind: X\nspec: {a: '${COLON}'}\n", false},
		{"a block string", "kind: X\nspec: {script: \"echo ${DOMAIN}\\necho $HOME\\n\"}\n", false},
		{"a float", "kind: X\nspec: {a: 1.5, b: '${DOMAIN}'}\n", false},
		{"a merge key", "kind: X\nspec: {'<<': {a: 1}, b: '${DOMAIN}'}\n", false},
		{"a key", "kind: X\nspec: {'${DOMAIN}': a}\n", false},
		{"a bad reference", "kind: X\nspec: {a: '${DOMAIN'}\n", false},
		{"a default beside the same variable kept", "kind: X\nspec: {a: '${X:-d}', b: '${X}', c: '${X:+s}', d: ['${X:=e}']}\n", true},
		{"a default that refers to another variable", "kind: X\nspec: {a: '${A:-${X}}', b: '${A}'}\n", false},
		{"a short line with spaces", "kind: X\nspec: {a: {b: 'x ${DOMAIN} y'}}\n", true},
		{"a long line yaml.v2 may break", "kind: X\nspec: {a: {b: {c: 'one ${DOMAIN} two three four five six seven eight nine ten eleven'}}}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raws, _, err := yamldoc.Decode([]byte(tc.doc), 1)
			if err != nil || len(raws) != 1 {
				t.Fatalf("%v %v", raws, err)
			}
			for range 20 { // a mapping's strings come in a new order each time
				if fast := sameWays(t, raws[0].Doc, vars); fast != tc.fast {
					t.Fatalf("string by string: %v, want %v", fast, tc.fast)
				}
			}
		})
	}
}

// The string-by-string way's bound on the printed size counts a block
// string's indentation on every line: an object the whole way refuses
// (over MaxBytes once printed) goes the whole way.
func TestSubstituteFastBound(t *testing.T) {
	doc := map[string]any{"kind": "X", "v": "${V}"}
	inner := doc
	for range 10 {
		next := map[string]any{}
		inner["n"] = next
		inner = next
	}
	inner["block"] = strings.Repeat("a\n", 200_000)
	if _, _, err := substituteText(doc, map[string]string{"V": "x"}); err == nil {
		t.Fatal("the whole way takes the object; the test needs one it refuses")
	}
	if sameWays(t, doc, map[string]string{"V": "x"}) {
		t.Error("the string-by-string way took an object the whole way refuses")
	}
}

// FuzzSubstituteFast holds the string-by-string way to the whole text's
// result on any document and variable values.
func FuzzSubstituteFast(f *testing.F) {
	f.Add([]byte("kind: X\nspec: {host: 'a.${V}', n: '${W}', l: ['${V}', x$y]}\n"), "example.com", "3")
	f.Add([]byte("kind: X\nspec: {a: '${V:-d}', b: '$${V}', c: \"${W}\\t\"}\n"), "a: b", "[1, 2]")
	f.Add([]byte("kind: X\nspec: {a: '${V}', b: '${U}'}\n"), "'", "&a x")
	f.Add([]byte("kind: X\nspec: {a: '${X:-d}', b: '${X}', c: '${X:+${V}}'}\n"), "v", "w")
	f.Add([]byte("kind: X\nspec: {a: {b: {c: 'one ${V} two three four five six seven eight nine ten eleven twelve'}}}\n"), "x y", "")
	f.Fuzz(func(t *testing.T, data []byte, v, w string) {
		raws, _, err := yamldoc.Decode(data, 4)
		if err != nil {
			return
		}
		vars := map[string]string{"V": v, "W": w}
		for _, raw := range raws {
			sameWays(t, raw.Doc, vars)
		}
	})
}

// printsAsIs says yes only to strings yaml.v2 prints as they are.
func FuzzPrintsAsIs(f *testing.F) {
	for _, seed := range []string{"${A}", "app.${DOMAIN}", "$x y", "a${B}-c/d_e=f+g~h(i),j@k", "${A} ", "-${A}", "https://${A}:8080/x", "${A}:", "1${A}"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !strings.Contains(s, "$") || !printsAsIs(s) {
			return
		}
		data, err := yamlv2.Marshal(map[string]any{"k": s})
		if err != nil || string(data) != "k: "+s+"\n" {
			t.Fatalf("printsAsIs(%q), but yaml.v2 prints %q (%v)", s, data, err)
		}
	})
}

// readsAsString says yes only to text yaml.v2 reads back, as a mapping's
// value and as a sequence's item, as the string it is.
func FuzzReadsAsString(f *testing.F) {
	for _, seed := range []string{"app.example.com", "https://a.b:8080/x", "yes", "no", "Off", "null", "y", "x:", "_a", "/a/b", "a@b", "1.5", "~"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !readsAsString(text) {
			return
		}
		for _, doc := range []string{"k: " + text, "k:\n- " + text} {
			m, err := readBack(doc)
			want := any(text)
			if doc[2] == '\n' {
				want = []any{text}
			}
			if err != nil || !reflect.DeepEqual(m["k"], want) {
				t.Fatalf("readsAsString(%q), but readBack(%q) gives %#v (%v)", text, doc, m["k"], err)
			}
		}
	})
}
