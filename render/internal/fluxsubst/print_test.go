package fluxsubst

import (
	"bytes"
	"math"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/render/internal/yamldoc"
)

// printCases are documents whose printing turns on a rule of the JSON
// round trip: numbers that change type, strings YAML would read as
// something else, empty and null collections, the merge key.
var printCases = map[string]any{
	"numbers": map[string]any{
		"int": int64(3), "negative": int64(-7), "big": int64(math.MaxInt64), "small": int64(math.MinInt64),
		"whole float": 2.0, "half": 1.5, "tiny": 0.000001, "tinier": 1e-7, "huge": 1e21, "over uint64": 1e20,
		"just under uint64": 1.8e19, "negative zero": math.Copysign(0, -1), "pi": math.Pi,
	},
	"strings": map[string]any{
		"bool words": []any{"yes", "no", "on", "off", "true", "y", "N"}, "numbers": []any{"1", "0x1f", "1e3", "-.inf", ".nan", "0o17", "017"},
		"empty": "", "null": "null", "tilde": "~", "colon": "a: b", "dash": "- x", "hash": "a #b", "quote": `"x'`,
		"lines": "one\ntwo\n", "trailing space": "x ", "leading space": " x", "tab": "a\tb", "cr": "a\rb", "template": "${APP}-{{ .x }}",
		"long": string(bytes.Repeat([]byte("word "), 40)), "backslash": `a\b`, "timestamp": "2001-12-14t21:59:43.10-05:00",
	},
	"collections": map[string]any{
		"empty map": map[string]any{}, "empty list": []any{}, "nil list": []any(nil), "nil map": map[string]any(nil),
		"nested": []any{[]any{map[string]any{"a": nil}}, map[string]any{}}, "<<": map[string]any{"x": int64(1)},
	},
	"keys":                    map[string]any{"10": true, "9": false, "a10": "x", "a9": "y", "": "empty key", "1.5": nil, "B": 1.0, "a": 2.0},
	"fallback utf8":           map[string]any{"a": "café ✓"},
	"fallback del":            map[string]any{"a": "a\x7fb"},
	"fallback control":        []any{"a\x01b"},
	"fallback invalid":        map[string]any{"a\xffb": "x"},
	"fallback line separator": "a\u2028b",
	"fallback a Go int":       map[string]any{"a": 3},
	// yaml.v2 refuses a key over 1024 characters in the JSON it reads back
	// (so does Flux); up to 170 bytes the key fits however json.Marshal
	// escapes it.
	"key of 170 escaped bytes":        map[string]any{strings.Repeat("<", maxShortKey): "x"},
	"fallback key of 171 bytes":       map[string]any{strings.Repeat("k", maxShortKey+1): "x"},
	"fallback key over yaml.v2 limit": map[string]any{"a": map[string]any{strings.Repeat("x", 1100): nil}},
	"a list":                          []any{"x", int64(1), nil, true},
	"a scalar":                        "plain",
}

// printYAML prints every document byte for byte as sigs.k8s.io/yaml.Marshal,
// and takes the short way whenever every string is plain ASCII.
func TestPrintYAML(t *testing.T) {
	for name, doc := range printCases {
		want, werr := sigsyaml.Marshal(doc)
		got, err := printYAML(doc)
		if (err != nil) != (werr != nil) || !bytes.Equal(got, want) {
			t.Errorf("%s: printYAML gave\n%s(err %v)\nsigs.k8s.io/yaml.Marshal gives\n%s(err %v)", name, got, err, want, werr)
		}
		_, short := readAsV2(doc, 0)
		if wantShort := !strings.HasPrefix(name, "fallback"); short != wantShort {
			t.Errorf("%s: took the short way: %v, want %v", name, short, wantShort)
		}
	}
	if _, err := printYAML(printCases["fallback key over yaml.v2 limit"]); err == nil {
		t.Error("printYAML of a key over 1024 characters: no error, want yaml.v2's (as Flux's substitution fails)")
	}
	if _, err := printYAML(map[string]any{"nan": math.NaN()}); err == nil {
		t.Error("printYAML of NaN: no error, want json.Marshal's")
	}
	deep := any("bottom")
	for range maxPrintDepth + 5 {
		deep = []any{deep}
	}
	if _, short := readAsV2(deep, 0); short {
		t.Error("a document deeper than maxPrintDepth took the short way")
	}
}

// FuzzPrintYAML: whatever yamldoc.Decode makes of a stream prints as Marshal prints it.
func FuzzPrintYAML(f *testing.F) {
	for _, seed := range []string{
		"a: 1\nb: 2.0\nc: 1e21\nd: [yes, 'no', ~]\n",
		"kind: X\nmetadata: {name: \"${APP}\", labels: {'10': a, '9': b}}\nspec: {x: 0x1f, y: .5, z: -0.0}\n",
		"a: \"\\x7f\\u00e9\\u2028\"\nb: |\n  line\n  \tnext\n",
		"<<: {a: 1}\n'<<': 2\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raws, _, err := yamldoc.Decode(data, 20)
		if err != nil {
			return
		}
		for _, raw := range raws {
			want, werr := sigsyaml.Marshal(raw.Doc)
			got, gerr := printYAML(raw.Doc)
			if (gerr != nil) != (werr != nil) || !bytes.Equal(got, want) {
				t.Fatalf("printYAML gave\n%s(err %v)\nMarshal gives\n%s(err %v)", got, gerr, want, werr)
			}
		}
	})
}
