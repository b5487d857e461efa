package calibrate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/capreport/capreport/config"
)

var fakeWorkloads = []Workload{{ID: "shop/HorizontalPodAutoscaler/api", Namespace: "shop", Kind: "Deployment", Name: "api", Row: RowSize}}

func fakeRun(t *testing.T, h http.HandlerFunc, o ClientOptions) ([]Result, error) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	o.URL = srv.URL
	src, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return Run(context.Background(), src, fakeWorkloads, Options{Now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}, nil)
}

func TestFakeUnauthorized(t *testing.T) {
	var auth atomic.Value
	_, err := fakeRun(t, func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		http.Error(w, "no", http.StatusUnauthorized)
	}, ClientOptions{Token: "s3cret"})
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "CAPREPORT_PROMETHEUS_TOKEN") {
		t.Fatalf("err = %v, want ErrUnauthorized naming the variable", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatal("the token is in the error")
	}
	if got := auth.Load(); got != "Bearer s3cret" {
		t.Fatalf("Authorization = %v", got)
	}
}

func TestFakeBasicAuth(t *testing.T) {
	var user, pass atomic.Value
	_, _ = fakeRun(t, func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		user.Store(u)
		pass.Store(p)
		http.Error(w, "no", http.StatusForbidden)
	}, ClientOptions{User: "ops", Password: "pw"})
	if user.Load() != "ops" || pass.Load() != "pw" {
		t.Fatalf("basic auth = %v:%v", user.Load(), pass.Load())
	}
}

func TestFakeServerError(t *testing.T) {
	var calls atomic.Int32
	_, err := fakeRun(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "boom", http.StatusBadGateway)
	}, ClientOptions{})
	if err == nil || !strings.Contains(err.Error(), "the server failed") || !strings.Contains(err.Error(), "kube_pod_owner") {
		t.Fatalf("err = %v, want a server failure naming the query", err)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d requests after the first failure, want the run to stop at 1", calls.Load())
	}
}

func TestFakeTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	_, err := fakeRun(t, func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm() // the server notices a client that gave up only once the body is read
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}, ClientOptions{Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no answer within --timeout 200ms") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("the timeout took %s", time.Since(start))
	}
}

// Empty results are findings, not errors, and nothing is written.
func TestFakeEmptyResults(t *testing.T) {
	rs, err := fakeRun(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "query_range") {
			_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
	}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || len(rs[0].Values) != 0 || len(rs[0].Unwritten) != 1 ||
		rs[0].Unwritten[0].Key != config.KeyDeadTime || !strings.Contains(rs[0].Unwritten[0].Message, "no pods found") {
		t.Fatalf("results = %+v", rs)
	}
}

func TestNewClientRejects(t *testing.T) {
	for _, o := range []ClientOptions{{URL: "prometheus:9090"}, {URL: "ftp://x"}, {URL: "http://x", CAFile: "/nonexistent/ca.pem"}} {
		if _, err := NewClient(o); err == nil {
			t.Errorf("NewClient(%+v) accepted", o)
		}
	}
}

// ServeHTTP answers Prometheus's HTTP API (query and query_range, POST or
// GET) from the fleet, in the JSON the real server writes.
func (f fleet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q := r.Form.Get("query")
	var v model.Value
	switch path.Base(r.URL.Path) {
	case "query":
		v = f.vector(q, formTime(r, "time"))
	case "query_range":
		v = f.matrix(q, rangeOf(r))
	default:
		http.NotFound(w, r)
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"status":"success","data":{"resultType":%q,"result":%s}}`, v.Type(), data)
}

// rangeOf is a range query's range.
func rangeOf(r *http.Request) v1.Range {
	step, _ := strconv.ParseFloat(r.Form.Get("step"), 64)
	return v1.Range{Start: formTime(r, "start"), End: formTime(r, "end"), Step: time.Duration(step * float64(time.Second))}
}

// newBuffered buffers what a handler writes: an answer of many small
// writes costs a system call per 64 KiB, not per write.
func newBuffered(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 64<<10) }

// formTime reads a form value in Prometheus's seconds since the epoch.
func formTime(r *http.Request, key string) time.Time {
	s, _ := strconv.ParseFloat(r.Form.Get(key), 64)
	return time.Unix(0, int64(s*1e9)).UTC()
}
