package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// fakeRelease serves GitHub's release download URLs for one release of
// o/capreport: /o/capreport/releases/download/TAG/NAME, 404 otherwise.
type fakeRelease struct {
	tag      string
	assets   map[string][]byte
	requests atomic.Int64
}

func (f *fakeRelease) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	prefix := "/o/capreport/releases/download/" + f.tag + "/"
	name, ok := strings.CutPrefix(r.URL.Path, prefix)
	body, found := f.assets[name]
	if !ok || !found {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(body)
}

// releaseAssets packs a stand-in binary the way .goreleaser.yaml names it,
// with checksums.txt; corrupt flips the archive's recorded checksum.
func releaseAssets(t *testing.T, version string, corrupt bool) map[string][]byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	bin := []byte("#!/bin/sh\necho capreport version " + version + "\n")
	for _, name := range []string{"LICENSE", "capreport"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(bin))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(bin); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	archive := fmt.Sprintf("capreport_%s_linux_amd64.tar.gz", strings.TrimPrefix(version, "v"))
	sum := sha256.Sum256(buf.Bytes())
	if corrupt {
		sum[0] ^= 0xff
	}
	checksums := fmt.Sprintf("%s  %s\n%s  capreport_%s_darwin_arm64.tar.gz\n", hex.EncodeToString(sum[:]), archive,
		strings.Repeat("0", 64), strings.TrimPrefix(version, "v"))
	return map[string][]byte{archive: buf.Bytes(), "checksums.txt": []byte(checksums)}
}

type installCase struct {
	name      string
	ref       string
	versionIn string // the action checkout's VERSION file, if any
	release   map[string][]byte
	wantFound bool
	wantFail  bool
	wantLog   string
}

// TestActionInstallStep runs the action's install step against a fake
// release server: a right checksum installs the release binary, a wrong
// one fails the step, and a ref with no release falls back to building.
func TestActionInstallStep(t *testing.T) {
	cases := []installCase{
		{name: "tag-checksum-right", ref: "v1.2.3", release: releaseAssets(t, "v1.2.3", false), wantFound: true, wantLog: "installed release v1.2.3"},
		{name: "major-tag-with-version-file", ref: "v1", versionIn: "v1.2.3\n", release: releaseAssets(t, "v1.2.3", false), wantFound: true},
		{name: "checksum-wrong", ref: "v1.2.3", release: releaseAssets(t, "v1.2.3", true), wantFail: true, wantLog: "does not match its checksums.txt"},
		{name: "no-release", ref: "v1.2.4", release: releaseAssets(t, "v1.2.3", false), wantLog: "has no checksums.txt"},
		{name: "branch", ref: "main", release: releaseAssets(t, "v1.2.3", false), wantLog: "names no release"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t) })
	}
}

func (c installCase) run(t *testing.T) {
	srv := &fakeRelease{tag: "v1.2.3", assets: c.release}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	actionPath, runnerTemp := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(actionPath, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(testutil.RepoRoot(t), "scripts", "action-install.sh"), filepath.Join(actionPath, "scripts", "action-install.sh"), 0o755)
	if c.versionIn != "" {
		writeFile(t, filepath.Join(actionPath, "VERSION"), c.versionIn)
	}
	output := filepath.Join(runnerTemp, "output")
	writeFile(t, output, "")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", filepath.Join(actionPath, "scripts", "action-install.sh"))
	cmd.Env = append(harnessEnv(t), "ACTION_REF="+c.ref, "ACTION_REPOSITORY=o/capreport", "SERVER_URL="+hs.URL,
		"RUNNER_OS=Linux", "RUNNER_ARCH=X64", "RUNNER_TEMP="+runnerTemp, "GITHUB_ACTION_PATH="+actionPath, "GITHUB_OUTPUT="+output)
	log, err := cmd.CombinedOutput()
	if failed := err != nil; failed != c.wantFail {
		t.Fatalf("step failed: %v, want %v\n%s", err, c.wantFail, log)
	}
	outs, _ := os.ReadFile(output)
	found := regexp.MustCompile(`(?m)^found=true$`).Match(outs)
	if found != c.wantFound {
		t.Errorf("found=%v, want %v; outputs %q\n%s", found, c.wantFound, outs, log)
	}
	if !strings.Contains(string(log), c.wantLog) {
		t.Errorf("log lacks %q:\n%s", c.wantLog, log)
	}
	_, statErr := os.Stat(filepath.Join(runnerTemp, "capreport"))
	if installed := statErr == nil; installed != c.wantFound {
		t.Errorf("binary installed: %v, want %v", installed, c.wantFound)
	}
	if c.ref == "main" && srv.requests.Load() != 0 {
		t.Errorf("a ref with no release made %d requests", srv.requests.Load())
	}
	if c.wantFound {
		out, err := exec.Command(filepath.Join(runnerTemp, "capreport")).Output()
		if err != nil || !strings.Contains(string(out), "v1.2.3") {
			t.Errorf("the installed binary: %q, %v", out, err)
		}
	}
}
