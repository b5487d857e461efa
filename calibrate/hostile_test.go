//go:build linux

package calibrate

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/testutil"
)

// The bounds of issue 31: calibrate against any Prometheus answer stays
// under hostileMemory and hostileTime, and says what was wrong.
const (
	hostileMemory = 1_000_000_000
	hostileTime   = 70 * time.Second
)

// hostileFleet is two namespaces of one Deployment each: "bad", one of
// whose queries the case spoils, and "good", answered as the fleet would.
var hostileFleet = fleet{perNS: 1, podsPer: 6}

var hostileWorkloads = []Workload{
	{Namespace: "bad", Kind: "Deployment", Name: "bad-w0", Row: RowSize},
	{Namespace: "good", Kind: "Deployment", Name: "good-w0", Row: RowSize},
}

var hostileOptions = Options{Now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Since: 7 * 24 * time.Hour}

// hostileCase answers the bad namespace's query that contains spoil with
// attack; every other query is answered as the fleet would.
type hostileCase struct {
	name   string
	spoil  string
	attack func(w http.ResponseWriter, r *http.Request)
	// findings must each be in one of the bad workload's findings; kept
	// are the keys the bad workload is still measured for, exactly as the
	// good one is (the good one always is, with everything).
	findings []string
	kept     []config.Key
}

func (c hostileCase) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	if q := r.Form.Get("query"); strings.Contains(q, `namespace="bad"`) && strings.Contains(q, c.spoil) {
		c.attack(w, r)
		return
	}
	hostileFleet.ServeHTTP(w, r)
}

const (
	usageQuery    = "container_cpu_usage_seconds_total"
	requestsQuery = "http_requests_total"
	ownersQuery   = "kube_pod_owner"
	deadQuery     = "kube_pod_status_ready_time"
)

var allKeys = []config.Key{config.KeyDeadTime, config.KeyPodRate, config.KeyDemand}

// TestHostilePrometheus: answers that are too large, too many or nested
// too deep for one query cost the run at most hostileMemory and
// hostileTime (each case runs in a process of its own, whose peak RSS is
// measured); the workloads that query feeds get a finding naming the query
// and the bound, and everything else is still measured. Before issue 31 a
// 1.2 GB padded answer took more than 4 GB and 150,000 one-sample series
// 7.6 GB.
func TestHostilePrometheus(t *testing.T) {
	testutil.SkipIfShort(t)
	want := hostileBaseline(t)
	for _, c := range []hostileCase{
		{name: "1.2 GB of padding in a range answer", spoil: usageQuery, attack: padded(1200 << 20),
			findings: []string{"podRate: the Prometheus answer to", usageQuery, "exceeds 256 MiB"},
			kept:     []config.Key{config.KeyDeadTime, config.KeyDemand}},
		{name: "1.2 GB of padding in the owners answer", spoil: ownersQuery, attack: padded(1200 << 20),
			findings: []string{"deadTime: the Prometheus answer to", ownersQuery, "exceeds 256 MiB"}},
		{name: "a gzip answer that inflates to 1.2 GB", spoil: requestsQuery, attack: gzipBomb(1200),
			findings: []string{"podRate: the Prometheus answer to", "demand: the Prometheus answer to", requestsQuery, "exceeds 256 MiB"},
			kept:     []config.Key{config.KeyDeadTime}},
		{name: "150,000 one-sample series", spoil: requestsQuery, attack: flood(150_000),
			findings: []string{"podRate: the Prometheus answer to", requestsQuery, "more than 100,000 series"},
			kept:     []config.Key{config.KeyDeadTime}},
		{name: "90,000 one-sample series beside the pods", spoil: usageQuery, attack: flood(90_000), kept: allKeys},
		{name: "1,900 pods of a week each", spoil: requestsQuery, attack: week(1900), kept: allKeys},
		{name: "every range answer at the sample bound", spoil: "", attack: atBounds, kept: allKeys},
		{name: "a 300 MB label", spoil: deadQuery, attack: longLabel(300 << 20),
			findings: []string{"deadTime: the Prometheus answer to", deadQuery, "longer than 16 KiB"},
			kept:     []config.Key{config.KeyPodRate, config.KeyDemand}},
		{name: "100 million brackets", spoil: usageQuery, attack: nested(100_000_000),
			findings: []string{"podRate: the Prometheus answer to", usageQuery, "nests deeper than"},
			kept:     []config.Key{config.KeyDeadTime, config.KeyDemand}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runHostile(t, c)
			checkHostile(t, c, got, want)
		})
	}
}

// hostileBaseline is what calibrate measures when nothing is spoiled.
func hostileBaseline(t *testing.T) hostileSummary {
	t.Helper()
	srv := httptest.NewServer(hostileFleet)
	defer srv.Close()
	src, err := NewClient(ClientOptions{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Run(context.Background(), src, hostileWorkloads, hostileOptions, nil)
	s := summarize(rs, err)
	for _, w := range hostileWorkloads {
		if got := s.Workloads[w.Ref()]; err != nil || len(got.Values) != len(allKeys) {
			t.Fatalf("the fleet itself: %s measured %v, findings %q, err %v", w.Ref(), got.Values, got.Findings, err)
		}
	}
	return s
}

func checkHostile(t *testing.T, c hostileCase, got, want hostileSummary) {
	t.Helper()
	if got.Err != "" {
		t.Fatalf("the run failed: %s", got.Err)
	}
	good, wantGood := got.Workloads["good/Deployment/good-w0"], want.Workloads["good/Deployment/good-w0"]
	if fmt.Sprint(good.Values) != fmt.Sprint(wantGood.Values) {
		t.Errorf("the good namespace: measured %v (findings %q), want %v", good.Values, good.Findings, wantGood.Values)
	}
	bad, wantBad := got.Workloads["bad/Deployment/bad-w0"], want.Workloads["bad/Deployment/bad-w0"]
	all := strings.Join(bad.Findings, "\n")
	t.Logf("the bad workload: measured %v, findings:\n%s", bad.Values, all)
	for _, f := range c.findings {
		if !strings.Contains(all, f) {
			t.Errorf("no finding of the bad workload says %q; findings:\n%s", f, all)
		}
	}
	for _, k := range allKeys {
		kept := false
		for _, want := range c.kept {
			kept = kept || want == k
		}
		if g, w := bad.Values[k.YAMLName()], wantBad.Values[k.YAMLName()]; kept && g != w || !kept && g != "" {
			t.Errorf("the bad workload's %s is %q, want %q (kept %v); findings:\n%s", k.YAMLName(), g, w, kept, all)
		}
	}
}

// hostileSummary is what the child reports: each workload's values (by
// YAML name) and findings, and the run's error.
type hostileSummary struct {
	Err       string
	Workloads map[string]hostileResult
}

type hostileResult struct {
	Values   map[string]string
	Findings []string
}

func summarize(rs []Result, err error) hostileSummary {
	s := hostileSummary{Workloads: map[string]hostileResult{}}
	if err != nil {
		s.Err = err.Error()
	}
	for _, r := range rs {
		hr := hostileResult{Values: map[string]string{}}
		for _, v := range r.Values {
			hr.Values[v.Key.YAMLName()] = v.Text
		}
		for _, f := range r.Unwritten {
			hr.Findings = append(hr.Findings, f.String())
		}
		s.Workloads[r.Workload.Ref()] = hr
	}
	return s
}

// runHostile serves the case on loopback and runs calibrate against it in
// a child process (TestHostileChild), whose peak RSS and time it bounds.
func runHostile(t *testing.T, c hostileCase) hostileSummary {
	t.Helper()
	srv := httptest.NewServer(c)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "summary.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CALIBRATE_HOSTILE_URL="+srv.URL, "CALIBRATE_HOSTILE_OUT="+out)
	start := time.Now()
	output, err := cmd.CombinedOutput()
	took := time.Since(start)
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("peak RSS %d MiB, %s", rss>>20, took.Round(time.Millisecond))
	if err != nil {
		t.Fatalf("calibrate failed: %v\n%s", err, output)
	}
	if rss >= hostileMemory || took >= hostileTime {
		t.Errorf("peak RSS %d MiB, %s: over the bounds (%d MB, %s)", rss>>20, took, hostileMemory/1_000_000, hostileTime)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no summary: %v\n%s", err, output)
	}
	var s hostileSummary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHostileChild is the process runHostile starts: it calibrates
// hostileWorkloads against CALIBRATE_HOSTILE_URL and writes the summary
// to CALIBRATE_HOSTILE_OUT. It exits at once, failing, when its resident
// set exceeds hostileMemory, so that a case that blows up fails fast
// instead of taking the machine's memory.
func TestHostileChild(t *testing.T) {
	url := os.Getenv("CALIBRATE_HOSTILE_URL")
	if url == "" {
		t.Skip("run by TestHostilePrometheus")
	}
	go watchRSS(hostileMemory)
	src, err := NewClient(ClientOptions{URL: url, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileTime)
	defer cancel()
	rs, err := Run(ctx, src, hostileWorkloads, hostileOptions, nil)
	data, _ := json.Marshal(summarize(rs, err))
	if err := os.WriteFile(os.Getenv("CALIBRATE_HOSTILE_OUT"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// watchRSS ends the process when its resident set exceeds limit bytes.
func watchRSS(limit int64) {
	page := int64(os.Getpagesize())
	for range time.Tick(2 * time.Millisecond) {
		statm, err := os.ReadFile("/proc/self/statm") // size resident shared ... in pages
		if err != nil {
			panic(err)
		}
		f := strings.Fields(string(statm))
		pages, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			panic(err)
		}
		if rss := pages * page; rss > limit {
			fmt.Fprintf(os.Stderr, "calibrate's resident set is %d MiB, over the bound of %d MB\n", rss>>20, limit/1_000_000)
			os.Exit(3)
		}
	}
}

// resultType is the type a Prometheus answer to r has.
func resultType(r *http.Request) model.ValueType {
	if strings.HasSuffix(r.URL.Path, "query_range") {
		return model.ValMatrix
	}
	return model.ValVector
}

// repeat writes b n times, stopping when the client has gone.
func repeat(w io.Writer, b []byte, n int) {
	for i := 0; i < n; i++ {
		if _, err := w.Write(b); err != nil {
			return
		}
	}
}

// padded answers with no series after n bytes of spaces.
func padded(n int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"success",`)
		repeat(w, bytes.Repeat([]byte(" "), 1<<20), n>>20)
		fmt.Fprintf(w, `"data":{"resultType":%q,"result":[]}}`, resultType(r))
	}
}

// gzipBomb answers with a gzip stream of a few hundred KiB that inflates
// to mib MiB of padding (one gzip member per MiB: Go's reader reads them
// as one stream, as RFC 1952 allows).
func gzipBomb(mib int) func(http.ResponseWriter, *http.Request) {
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = z.Write(b)
		_ = z.Close()
		return buf.Bytes()
	}
	head, pad := member([]byte(`{"status":"success",`)), member(bytes.Repeat([]byte(" "), 1<<20))
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(head)
		repeat(w, pad, mib)
		_, _ = w.Write(member([]byte(fmt.Sprintf(`"data":{"resultType":%q,"result":[]}}`, resultType(r)))))
	}
}

// flood answers with the fleet's series and n more of one sample each,
// for pods that no workload owns.
func flood(n int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		q, start := r.Form.Get("query"), r.Form.Get("start")
		mat := hostileFleet.matrix(q, rangeOf(r))
		data, _ := json.Marshal(mat)
		w.Header().Set("Content-Type", "application/json")
		bw := newBuffered(w)
		fmt.Fprintf(bw, `{"status":"success","data":{"resultType":"matrix","result":%s`, data[:len(data)-1])
		for i := 0; i < n; i++ {
			fmt.Fprintf(bw, `,{"metric":{"namespace":"bad","pod":"bad-flood-%d"},"values":[[%s,"1"]]}`, i, start)
		}
		_, _ = bw.WriteString("]}}")
		_ = bw.Flush()
	}
}

// week answers with the fleet's series and pods more, each with a
// sample at every step of the range: a large namespace's real answer.
func week(pods int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		rg := rangeOf(r)
		data, _ := json.Marshal(hostileFleet.matrix(r.Form.Get("query"), rg))
		w.Header().Set("Content-Type", "application/json")
		bw := newBuffered(w)
		fmt.Fprintf(bw, `{"status":"success","data":{"resultType":"matrix","result":%s`, data[:len(data)-1])
		var b []byte
		for p := 0; p < pods; p++ {
			b = fmt.Appendf(b[:0], `,{"metric":{"namespace":"bad","pod":"bad-big-%d"},"values":[`, p)
			for t := rg.Start; !t.After(rg.End); t = t.Add(rg.Step) {
				b = strconv.AppendInt(append(b, '['), t.Unix(), 10)
				b = append(b, `,"39.983333333333334"],`...)
			}
			b = append(b[:len(b)-1], "]}"...)
			if _, err := bw.Write(b); err != nil {
				return
			}
		}
		_, _ = bw.WriteString("]}}")
		_ = bw.Flush()
	}
}

// atBounds answers every range query with the fleet's series and as many
// more pods of a week each as MaxSamples allows: the most a namespace's
// answers can keep at once.
func atBounds(w http.ResponseWriter, r *http.Request) {
	if resultType(r) == model.ValVector {
		hostileFleet.ServeHTTP(w, r)
		return
	}
	perPod := hostileOptions.Since/(5*time.Minute) + 1 // the samples of a pod that ran the whole range
	week(MaxSamples/int(perPod)-hostileFleet.podsPer)(w, r)
}

// longLabel answers with one series whose pod label is n bytes long.
func longLabel(n int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":%q,"result":[{"metric":{"namespace":"bad","pod":"`, resultType(r))
		repeat(w, bytes.Repeat([]byte("a"), 1<<20), n>>20)
		_, _ = io.WriteString(w, `"},"value":[1,"1"]}]}}`)
	}
}

// nested answers with a statistics field of depth opening brackets.
func nested(depth int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":%q,"result":[],"stats":`, resultType(r))
		repeat(w, bytes.Repeat([]byte("["), 1<<20), depth>>20)
		repeat(w, bytes.Repeat([]byte("]"), 1<<20), depth>>20)
		_, _ = io.WriteString(w, "}}")
	}
}
