package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

// gzipBomb is a chart archive that unpacks to 2 GiB: one tar entry
// declared at that size, then zeros as concatenated gzip members (each
// 1 MiB of zeros, compressed once), about 2 MiB on the wire.
func gzipBomb(t *testing.T) []byte {
	t.Helper()
	const size = 2 << 30
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	if err := tw.WriteHeader(&tar.Header{Name: "lib/templates/big.yaml", Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	member := func(b []byte) []byte {
		var out bytes.Buffer
		gz, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
		_, _ = gz.Write(b)
		_ = gz.Close()
		return out.Bytes()
	}
	zeros := member(make([]byte, 1<<20))
	var buf bytes.Buffer
	buf.Write(member(hdr.Bytes()))
	for i := 0; i < size>>20; i++ {
		buf.Write(zeros)
	}
	return buf.Bytes()
}

// hostileRepo serves index.yaml naming lib 1.0.0 and answers the archive
// with serve.
func hostileRepo(t *testing.T, serve http.HandlerFunc) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/index.yaml" {
			fmt.Fprintf(w, "apiVersion: v1\nentries:\n  lib:\n    - apiVersion: v2\n      name: lib\n      version: 1.0.0\n      urls: [%s/lib-1.0.0.tgz]\n", srv.URL)
			return
		}
		serve(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type hostileFetch struct {
	name  string
	serve http.HandlerFunc
	files func(url string) map[string]string // default: appChart on lib 1.0.0
	check string
	text  string
	// timeout is the request timeout; 500 ms unless set (a case that
	// must read a large body sets more, or a loaded machine times it out
	// before the size limit trips).
	timeout time.Duration
}

func (c hostileFetch) run(t *testing.T) {
	srv := hostileRepo(t, c.serve)
	files := appChart(srv.URL, "1.0.0", "")
	if c.files != nil {
		files = c.files(srv.URL)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	timeout := c.timeout
	if timeout == 0 {
		timeout = 500 * time.Millisecond
	}
	res := fetchRender(t, files, true, t.TempDir(), func(o *Options) { o.Fetch.RequestTimeout = timeout })
	took := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	got := findingsOf(res, c.check)
	if len(got) == 0 || !strings.Contains(got[0].Message, c.text) {
		t.Fatalf("want %s mentioning %q; got\n%s", c.check, c.text, dumpFindings(res.Findings))
	}
	if took > 10*time.Second {
		t.Errorf("took %s", took)
	}
	// What the run allocated stays near the archive and unpack limits,
	// far below the 2 GiB a bomb would take.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 400<<20 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
	if len(res.Sources) == 0 {
		t.Error("no report: the rest of the run must still be produced")
	}
}

func TestFetchHostile(t *testing.T) {
	testutil.SkipIfShort(t)
	bomb := gzipBomb(t)
	traversal := tgz(t, []tarEntry{{name: "lib/Chart.yaml", body: "apiVersion: v2\nname: lib\nversion: 1.0.0\n"}, {name: "lib/../../escape.yaml", body: "x"}})
	symlink := tgz(t, []tarEntry{{name: "lib/Chart.yaml", body: "apiVersion: v2\nname: lib\nversion: 1.0.0\n"}, {name: "lib/templates/link.yaml", typ: tar.TypeSymlink, link: "/etc/passwd"}})
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	many := func(url string) map[string]string {
		var b strings.Builder
		b.WriteString("apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n")
		for i := 0; i < 10000; i++ {
			fmt.Fprintf(&b, "  - name: dep%d\n    version: 1.0.0\n    repository: %s\n", i, url)
		}
		return map[string]string{"app/Chart.yaml": b.String(), "app/templates/cm.yaml": checksCM}
	}
	for _, c := range []hostileFetch{
		{name: "gzip-bomb", serve: func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(bomb) }, check: check.FetchLimit, text: "unpacks to more than"},
		{name: "dot-dot", serve: func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(traversal) }, check: check.FetchUnsafe, text: "leaves the archive"},
		{name: "symlink", serve: func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(symlink) }, check: check.FetchUnsafe, text: "is a link"},
		{name: "never-answers", serve: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-block:
			case <-r.Context().Done():
			}
		}, check: check.FetchLimit, text: "timed out"},
		{name: "redirect-to-file", serve: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}, check: check.FetchUnsafe, text: "redirects to file:///etc/passwd"},
		{name: "too-large", serve: func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(make([]byte, DefaultMaxArchiveBytes+1))
		}, check: check.FetchLimit, text: "limit", timeout: 20 * time.Second},
		{name: "10000-dependencies", serve: http.NotFound, files: many, check: check.FetchLimit, text: "10000 dependencies"},
	} {
		t.Run(c.name, c.run)
	}
}
