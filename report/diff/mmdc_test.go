package diff

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
)

// TestMermaidRendersInMMDC renders every Mermaid block of the comments'
// golden Markdown (this package's and the report's) with Mermaid's own
// command-line renderer in headless Chromium: a chart GitHub would refuse
// shows as an error box in the comment, and only a real Mermaid tells.
// scripts/install-mmdc.sh installs both; .ci/run runs it, so under CI a
// missing renderer is a failure, not a skip.
func TestMermaidRendersInMMDC(t *testing.T) {
	testutil.SkipIfShort(t)
	mmdc, browser := mmdcTools(t)
	cfg := filepath.Join(t.TempDir(), "puppeteer.json")
	// --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
	if err := os.WriteFile(cfg, []byte(`{"executablePath": "`+browser+`", "args": ["--no-sandbox"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "TestMarkdown", "*.golden.md"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "TestMarkdown", "*.golden.md"))
	files = append(files, more...)
	charts := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(src), "```mermaid\n")
		if n == 0 {
			continue
		}
		charts += n
		out := filepath.Join(t.TempDir(), "out.md")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		// With a Markdown input mmdc renders each block to out-N.svg and
		// fails on the first that does not parse.
		msg, err := exec.CommandContext(ctx, mmdc, "-q", "-p", cfg, "-i", f, "-o", out).CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("%s: mmdc: %v\n%s", f, err, msg)
			continue
		}
		svgs, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "out-*.svg"))
		if len(svgs) != n {
			t.Errorf("%s: %d charts rendered, want %d", f, len(svgs), n)
		}
		for _, s := range svgs {
			if b, _ := os.ReadFile(s); strings.Contains(string(b), "Syntax error") {
				t.Errorf("%s: %s shows Mermaid's syntax error", f, filepath.Base(s))
			}
		}
	}
	if charts == 0 {
		t.Fatal("no Mermaid block in the golden Markdown: the test checks nothing")
	}
}

// mmdcTools finds mmdc and a Chromium, or skips (fails under CI, which
// installs them).
func mmdcTools(t *testing.T) (mmdc, browser string) {
	t.Helper()
	mmdc, err := exec.LookPath("mmdc")
	browser = os.Getenv("CHROMIUM")
	if browser == "" {
		browser = "/usr/bin/chromium"
	}
	_, berr := os.Stat(browser)
	if err == nil && berr == nil {
		return mmdc, browser
	}
	msg := "mmdc (npm @mermaid-js/mermaid-cli) or Chromium (" + browser + ") not installed: run scripts/install-mmdc.sh"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return "", ""
}
