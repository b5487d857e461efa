package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Digest is the same on every call, and on Linux comes from the Go build
// ID note, which `go tool buildid` prints.
func TestDigest(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got := Digest()
	if got == "unknown" || Digest() != got {
		t.Fatalf("Digest() = %q, then %q", got, Digest())
	}
	if runtime.GOOS != "linux" {
		return
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	note := goBuildIDNote(exe)
	if !strings.Contains(string(note), strings.TrimSpace(string(out))) {
		t.Errorf("the build ID note %q does not hold go tool buildid's %q", note, out)
	}
	sum := sha256.Sum256(note)
	if want := "go-build-id:" + hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Digest() = %s, want %s", got, want)
	}
}

// A file without the note is named by its contents.
func TestFileDigest(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if goBuildIDNote(p) != nil {
		t.Error("a text file has a build ID note")
	}
	if got := fileDigest(p); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("fileDigest = %s", got)
	}
}
