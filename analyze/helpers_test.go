package analyze

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/capreport/capreport/render"
)

// loadObjects decodes a multi-document fixture into render.Objects the way
// the renderer would: JSON-compatible documents, origin file and line.
func loadObjects(t testing.TB, name string) []render.Object {
	t.Helper()
	path := filepath.Join("..", "testdata", "extract", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	objs, err := decodeObjects(name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return objs
}

func decodeObjects(file string, data []byte) ([]render.Object, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var out []render.Object
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var raw any
		if err := n.Decode(&raw); err != nil {
			return nil, err
		}
		if raw == nil {
			continue
		}
		// The JSON round trip gives the renderer's value types (float64).
		doc, err := jsonDoc(raw)
		if err != nil {
			return nil, err
		}
		md, _ := doc["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		ns, _ := md["namespace"].(string)
		av, _ := doc["apiVersion"].(string)
		kind, _ := doc["kind"].(string)
		line := n.Line
		if len(n.Content) > 0 {
			line = n.Content[0].Line
		}
		out = append(out, render.Object{APIVersion: av, Kind: kind, Name: name, Namespace: ns, Doc: doc,
			Origin: render.Origin{Source: "testdata/extract", SourceType: render.SourcePlain, File: file, Line: line}})
	}
}

// jsonDoc is raw after json.Marshal and json.Unmarshal into a map, errors
// included. A document of the plain values YAML decodes to is converted
// directly: the round trip took a fifth of each FuzzExtract execution, as
// much as Extract itself. Anything else (a string or key that is not UTF-8,
// NaN or an infinity, a time, a non-string key, nesting deep enough for
// json.Unmarshal's depth limit) takes the round trip itself;
// TestJSONDocIsJSONRoundTrip holds the two equal.
func jsonDoc(raw any) (map[string]any, error) {
	if m, ok := raw.(map[string]any); ok {
		if out, ok := plainJSON(m, 0); ok {
			return out.(map[string]any), nil
		}
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// plainJSON converts v when every value in it is one whose JSON round trip
// is known without running it; ok is false otherwise.
func plainJSON(v any, depth int) (out any, ok bool) {
	if depth > 1000 {
		return nil, false
	}
	switch x := v.(type) {
	case nil, bool:
		return x, true
	case string:
		return x, utf8.ValidString(x)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			if l[i], ok = plainJSON(e, depth+1); !ok {
				return nil, false
			}
		}
		return l, true
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if !utf8.ValidString(k) {
				return nil, false
			}
			if m[k], ok = plainJSON(e, depth+1); !ok {
				return nil, false
			}
		}
		return m, true
	}
	return nil, false
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "extract", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestJSONDocIsJSONRoundTrip: jsonDoc gives what the JSON round trip gives,
// value for value and error for error, on every fixture, on the YAML whose
// round trip is not the identity, and on values YAML cannot produce but
// jsonDoc must not get wrong either.
func TestJSONDocIsJSONRoundTrip(t *testing.T) {
	docs := []string{
		"a: 1\nb: -7\nc: 0x1f\nd: 1_000\ne: 9223372036854775807\nf: 18446744073709551615\ng: 123456789012345678901234567890",
		"a: 1.5\nb: -0.0\nc: 1e300\nd: .inf\n",
		"a: .nan\n",
		"a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n",
		"a: !!binary aGVsbG8=\nb: !!binary /w==\n",
		"a: \"<&> \\u2028 \\t \\xff\"\nb: [null, true, ~, '']\n",
		"1: a\n",
		"a: {1: b}\n",
		"a: &x {b: [1, 2]}\nc: *x\n<<: {d: 3}\n",
		"- a\n",
		"just text\n",
		"a: " + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + "\n",
	}
	for _, name := range fixtureNames(t) {
		docs = append(docs, strings.Split(string(readFixture(t, name)), "\n---\n")...)
	}
	var raws []any
	for _, d := range docs {
		var raw any
		if err := yaml.Unmarshal([]byte(d), &raw); err == nil && raw != nil {
			raws = append(raws, raw)
		}
	}
	deep := any("x")
	for i := 0; i < 10000; i++ {
		deep = []any{deep}
	}
	raws = append(raws,
		map[string]any{"\xff": 1, "\xfe": 2}, // keys that merge once made valid
		map[string]any{"b": []any{"\xc3"}},
		map[string]any{"a": deep}, // past json.Unmarshal's depth limit
		map[string]any{"a": math.Inf(-1)},
		map[string]any{"a": map[any]any{"b": 1}},
		map[string]any{"a": time.Date(2001, 12, 14, 21, 59, 43, 1e8, time.UTC)},
	)
	for i, raw := range raws {
		got, gotErr := jsonDoc(raw)
		var want map[string]any
		b, wantErr := json.Marshal(raw)
		if wantErr == nil {
			wantErr = json.Unmarshal(b, &want)
		}
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("value %d: error %v, the round trip's %v", i, gotErr, wantErr)
			continue
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !reflect.DeepEqual(got, want) || string(gj) != string(wj) {
			t.Errorf("value %d: %.200s, the round trip gives %.200s", i, gj, wj)
		}
	}
}

func fixtureNames(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join("..", "testdata", "extract"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, e.Name())
		}
	}
	return names
}
