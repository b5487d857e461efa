package upstreamdiff

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

// TestUpstreamCopiesUnchanged checks that the copied upstream files still
// hash as recorded and equal the files of the k8s.io/kubernetes module this
// module requires, so that the differential test compares against v1.34.0
// and not against an edited copy.
func TestUpstreamCopiesUnchanged(t *testing.T) {
	f, err := os.Open("podautoscaler/UPSTREAM.sha256")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/kubernetes: %v", err)
	}
	moduleDir := strings.TrimSpace(string(out))
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		n++
		local, err := os.ReadFile(filepath.Join("podautoscaler", name))
		if err != nil {
			t.Fatal(err)
		}
		if h := sha256.Sum256(local); hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: sha256 %x, recorded %s", name, h, sum)
		}
		orig, err := os.ReadFile(filepath.Join(moduleDir, "pkg/controller/podautoscaler", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(local, orig) {
			t.Errorf("%s differs from %s", name, moduleDir)
		}
	}
	if n == 0 {
		t.Fatal("no files recorded")
	}
}
