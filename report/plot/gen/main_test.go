package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestRunWritesEveryExample(t *testing.T) {
	dir := t.TempDir()
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"size", "rounds", "time", "phi"} {
		svg, err := os.ReadFile(filepath.Join(dir, kind+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s.svg is not an SVG document", kind)
		}
		raw, err := os.ReadFile(filepath.Join(dir, kind+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
			t.Errorf("%s.png: %v", kind, err)
		}
	}
}
