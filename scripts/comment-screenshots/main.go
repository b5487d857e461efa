// Command comment-screenshots renders capreport's comment Markdown the way
// GitHub shows it (goldmark with GitHub Flavored Markdown, raw HTML kept,
// Mermaid blocks drawn by Mermaid itself) in headless Chromium, in GitHub's
// light and dark themes, and writes one PNG per file and theme. A reviewer
// looks at them to check what no golden file can: that the charts' ticks,
// lines and axes read at a glance.
//
// Usage (after scripts/install-mmdc.sh, from the repository root):
//
//	go run ./scripts/comment-screenshots -o /tmp/shots [file.md ...]
//
// Without files it renders the comments' golden Markdown. Mermaid's script
// comes from the mermaid-cli install (its bundled mermaid.min.js), so the
// page needs no network.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

var defaultInputs = []string{
	"report/diff/testdata/TestMarkdown/changed-then-failing.golden.md",
	"report/diff/testdata/TestMarkdown/pull-request.golden.md",
	"report/testdata/TestMarkdown/specimen.golden.md",
}

func main() {
	out := flag.String("o", "comment-screenshots", "output directory")
	browser := flag.String("chromium", "/usr/bin/chromium", "headless Chromium")
	mermaidJS := flag.String("mermaid", "", "mermaid.min.js (default: the one mmdc bundles)")
	height := flag.Int("height", 2600, "screenshot height in pixels")
	flag.Parse()
	inputs := flag.Args()
	if len(inputs) == 0 {
		inputs = defaultInputs
	}
	if err := run(*out, *browser, *mermaidJS, *height, inputs); err != nil {
		fmt.Fprintln(os.Stderr, "comment-screenshots:", err)
		os.Exit(1)
	}
}

func run(out, browser, mermaidJS string, height int, inputs []string) error {
	if mermaidJS == "" {
		root, err := exec.Command("npm", "root", "-g").Output()
		if err != nil {
			return fmt.Errorf("npm root -g: %w (or pass -mermaid)", err)
		}
		mermaidJS = filepath.Join(strings.TrimSpace(string(root)), "@mermaid-js/mermaid-cli/node_modules/mermaid/dist/mermaid.min.js")
	}
	js, err := os.ReadFile(mermaidJS)
	if err != nil {
		return fmt.Errorf("%w: run scripts/install-mmdc.sh or pass -mermaid", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, in := range inputs {
		md, err := os.ReadFile(in)
		if err != nil {
			return err
		}
		body, err := toHTML(md)
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(in), ".md"), ".golden")
		for _, dark := range []bool{false, true} {
			name := base + map[bool]string{false: "-light", true: "-dark"}[dark]
			page := filepath.Join(out, name+".html")
			if err := os.WriteFile(page, []byte(pageHTML(body, string(js), dark)), 0o644); err != nil {
				return err
			}
			png := filepath.Join(out, name+".png")
			if err := screenshot(browser, page, png, height); err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
			fmt.Println(png)
		}
	}
	return nil
}

// toHTML converts Markdown as GitHub does: GFM (tables, strikethrough,
// autolinks, task lists) with raw HTML (<details>, <sub>) passed through.
func toHTML(md []byte) (string, error) {
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	var b bytes.Buffer
	if err := gm.Convert(md, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// pageHTML wraps the body in GitHub's comment look and has Mermaid draw
// each ```mermaid block in the theme GitHub picks for light or dark mode;
// <details> are opened so the screenshot shows what a reader can expand.
func pageHTML(body, mermaidJS string, dark bool) string {
	theme, bg, fg, border := "default", "#ffffff", "#1f2328", "#d1d9e0"
	if dark {
		theme, bg, fg, border = "dark", "#0d1117", "#e6edf3", "#3d444d"
	}
	return `<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{font:14px/1.5 -apple-system,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;background:` + bg + `;color:` + fg + `;margin:0}
main{max-width:880px;margin:16px auto;padding:16px;border:1px solid ` + border + `;border-radius:6px}
table{border-collapse:collapse;display:block;overflow:auto}th,td{border:1px solid ` + border + `;padding:4px 10px}
h2,h3{border-bottom:1px solid ` + border + `;padding-bottom:.3em}pre.mermaid{background:none}
</style></head><body><main>` + body + `</main>
<script>` + mermaidJS + `</script>
<script>
document.querySelectorAll("details").forEach(d => d.open = true);
document.querySelectorAll("pre > code.language-mermaid").forEach(code => {
  const pre = document.createElement("pre");
  pre.className = "mermaid";
  pre.textContent = code.textContent;
  code.parentNode.replaceWith(pre);
});
mermaid.initialize({startOnLoad: false, theme: "` + theme + `"});
mermaid.run();
</script></body></html>`
}

// screenshot has headless Chromium load the page (letting Mermaid's script
// run) and write a PNG.
func screenshot(browser, page, png string, height int) error {
	abs, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	pngAbs, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--virtual-time-budget=15000", fmt.Sprintf("--window-size=960,%d", height),
		"--screenshot="+pngAbs, "file://"+abs)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", browser, err, msg)
	}
	return nil
}
