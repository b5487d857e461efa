package kedadiff

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// upstreamPath is where each copied file lives in the KEDA module.
var upstreamPath = map[string]string{
	"hpa.go":  "controllers/keda/hpa.go",
	"LICENSE": "LICENSE",
}

// TestUpstreamCopiesUnchanged checks that the files copied from KEDA still
// hash as recorded and equal the files of the KEDA module this module
// requires, so that the differential test compares against v2.19.0 and
// not against an edited copy.
func TestUpstreamCopiesUnchanged(t *testing.T) {
	f, err := os.Open("keda/UPSTREAM.sha256")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kedacore/keda/v2").Output()
	if err != nil {
		t.Fatalf("locating github.com/kedacore/keda/v2: %v", err)
	}
	moduleDir := strings.TrimSpace(string(out))
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || upstreamPath[name] == "" {
			t.Fatalf("bad line %q", line)
		}
		n++
		local, err := os.ReadFile(filepath.Join("keda", name))
		if err != nil {
			t.Fatal(err)
		}
		if h := sha256.Sum256(local); hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: sha256 %x, recorded %s", name, h, sum)
		}
		orig, err := os.ReadFile(filepath.Join(moduleDir, upstreamPath[name]))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(local, orig) {
			t.Errorf("%s differs from %s", name, filepath.Join(moduleDir, upstreamPath[name]))
		}
	}
	if n != len(upstreamPath) {
		t.Fatalf("%d files recorded, want %d", n, len(upstreamPath))
	}
}
