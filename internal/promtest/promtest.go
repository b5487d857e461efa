// Package promtest runs a real Prometheus server for tests: it builds a
// TSDB from OpenMetrics text with promtool, starts prometheus on a free
// loopback port and stops it when the test ends. It never contacts
// anything but 127.0.0.1.
package promtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// binaries finds prometheus and promtool. Missing ones fail the test,
// in CI and outside it alike, saying how to install them: these tests
// are never skipped silently.
func binaries(t testing.TB) (prom, tool string) {
	t.Helper()
	var missing []string
	find := func(name string) string {
		p, err := exec.LookPath(name)
		if err != nil {
			missing = append(missing, name)
		}
		return p
	}
	prom, tool = find("prometheus"), find("promtool")
	if len(missing) > 0 {
		where := "install it: apt-get install -y --no-install-recommends prometheus (Debian's package ships promtool)"
		if os.Getenv("CI") != "" {
			where = ".ci/run should have installed it (apt-get install prometheus); check its install step"
		}
		t.Fatalf("%s not found on PATH; the calibrate tests run a real Prometheus server: %s", strings.Join(missing, " and "), where)
	}
	return prom, tool
}

// Start builds a TSDB from openMetrics (which must end with "# EOF") and
// serves it; it returns the server's base URL.
func Start(t testing.TB, openMetrics []byte) string {
	t.Helper()
	prom, tool := binaries(t)
	dir := t.TempDir()
	input := filepath.Join(dir, "series.om")
	data := filepath.Join(dir, "data")
	if err := os.WriteFile(input, openMetrics, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "tsdb", "create-blocks-from", "openmetrics", input, data).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1m\nscrape_configs: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	var logs bytes.Buffer
	cmd := exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+data,
		"--storage.tsdb.retention.time=100y", "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting prometheus: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	url := "http://" + addr
	if err := waitReady(url, done); err != nil {
		t.Fatalf("prometheus did not become ready: %v\n%s", err, logs.String())
	}
	return url
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitReady(url string, exited <-chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/-/ready", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-exited:
			return fmt.Errorf("exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
