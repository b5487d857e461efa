package report

import (
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
)

// TestHTMLFilterInChromium: the page's filter works in a real browser.
// Headless Chromium (Debian's, which .ci/run installs for the Mermaid
// tests) loads the specimen page with a choice made in its <select>s and
// a probe script appended (the page's own CSP, which forbids scripts, is
// taken out for the probe only); the probe lists the marked rows and
// details the CSS leaves displayed.
func TestHTMLFilterInChromium(t *testing.T) {
	testutil.SkipIfShort(t)
	browser := "/usr/bin/chromium"
	if _, err := os.Stat(browser); err != nil {
		t.Fatalf("headless Chromium is missing (scripts/install-mmdc.sh installs it): %v", err)
	}
	page, err := HTML(specimenReport(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Namespaces by index: n0 payments (2), n1 search, n2 shop, n3 web.
	for _, c := range []struct {
		name, verdict, namespace string
		want                     []string // visible marks, rows then details
	}{
		{"all", "", "", []string{
			"TR m v-fail n0", "TR m v-fail n2", "TR m v-warn n3", "TR m v-pass n0", "TR m v-unpriced n1",
			"DETAILS m v-fail n0", "DETAILS m v-fail n2", "DETAILS m v-warn n3", "DETAILS m v-pass n0", "DETAILS m v-unpriced n1"}},
		{"failing", "v-fail", "", []string{"TR m v-fail n0", "TR m v-fail n2", "DETAILS m v-fail n0", "DETAILS m v-fail n2"}},
		{"one namespace", "", "n0", []string{"TR m v-fail n0", "TR m v-pass n0", "DETAILS m v-fail n0", "DETAILS m v-pass n0"}},
		{"failing in one namespace", "v-fail", "n2", []string{"TR m v-fail n2", "DETAILS m v-fail n2"}},
		{"nothing matches", "v-warn", "n0", nil},
	} {
		got := visibleInChromium(t, browser, chosen(t, page, c.verdict, c.namespace))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: visible %q, want %q", c.name, got, c.want)
		}
	}
}

// chosen is the page with an option chosen in each filter ("" keeps all).
func chosen(t *testing.T, page []byte, verdict, namespace string) string {
	t.Helper()
	s := string(page)
	for id, v := range map[string]string{"fv": verdict, "fn": namespace} {
		if v == "" {
			continue
		}
		i := strings.Index(s, `<select id="`+id+`">`)
		opt := `<option value="` + v + `">`
		j := strings.Index(s[i:], opt)
		if i < 0 || j < 0 {
			t.Fatalf("no option %s in select %s", v, id)
		}
		s = s[:i] + strings.Replace(strings.Replace(s[i:], `<option value="" selected>`, `<option value="">`, 1), opt, `<option value="`+v+`" selected>`, 1)
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>\n`)
	if !csp.MatchString(s) {
		t.Fatal("the page has no Content-Security-Policy")
	}
	s = csp.ReplaceAllString(s, "")
	probe := `<script>document.body.setAttribute("data-visible", JSON.stringify(
[...document.querySelectorAll("tr:has(.m), details:has(.m)")]
.filter(e => getComputedStyle(e).display !== "none")
.map(e => e.tagName + " " + e.querySelector(".m").className)));</script>`
	return strings.Replace(s, "</body>", probe+"\n</body>", 1)
}

// visibleInChromium loads page in headless Chromium and returns what the
// probe found displayed.
func visibleInChromium(t *testing.T, browser, page string) []string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+file).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`data-visible="([^"]*)"`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the probe did not run:\n%.2000s", out)
	}
	var vis []string
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &vis); err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(vis, func(a, b string) int { // rows first, in page order
		return strings.Compare(a[:2], b[:2]) * -1
	})
	return vis
}
