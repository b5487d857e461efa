package analyze

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		b, err := json.Marshal(raw)
		if err != nil {
			return nil, err
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
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

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "extract", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
