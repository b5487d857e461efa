package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// FuzzReadAnswer: whatever a Prometheus server sends, the answer reader
// (answer.go, jsonscan.go) ends without panicking and within the bounds it
// is given: it reads at most one byte past the byte bound (which then
// fails it), hands over no more series, samples or labels than bounded,
// and one sample per series of an instant vector. And an answer that both
// it and client_golang's decoder (what calibrate read answers with before
// issue 31) accept gives the same series, label for label and sample for
// sample.
func FuzzReadAnswer(f *testing.F) {
	for _, s := range answerSeeds() {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, matrix bool) {
		want := model.ValVector
		if matrix {
			want = model.ValMatrix
		}
		lim := limits{bytes: 4 << 10, series: 20, samples: 100}
		r := &countingReader{r: bytes.NewReader(body)}
		var g []got
		samples := 0
		_, err := readAnswer(newBoundedBody(r, lim.bytes), want, lim, func(m model.Metric, pts []model.SamplePair) error {
			if want == model.ValVector && len(pts) != 1 || len(pts) > maxSeriesSamples || len(m) > maxLabels {
				t.Fatalf("a series of %d samples and %d labels", len(pts), len(m))
			}
			samples += len(pts)
			g = append(g, got{m.Clone(), append([]model.SamplePair(nil), pts...)})
			return nil
		})
		var le *LimitError
		switch {
		case r.n > lim.bytes+1:
			t.Fatalf("read %d bytes, bound %d", r.n, lim.bytes)
		case errors.As(err, &le) && strings.HasPrefix(le.What, "exceeds") && int64(len(body)) <= lim.bytes:
			t.Fatalf("%d bytes: %v", len(body), err)
		case len(g) > lim.series || matrix && samples > lim.samples:
			t.Fatalf("%d series of %d samples handed over, bounds %d and %d", len(g), samples, lim.series, lim.samples)
		}
		if err == nil && comparable(body) {
			sameAsOld(t, body, want, g)
		}
	})
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// answerSeeds are answers as Prometheus writes them, and some that are
// not.
func answerSeeds() []string {
	f := fleet{perNS: 1, podsPer: 2}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	vec, _ := json.Marshal(f.vector(`kube_pod_owner{namespace="shop"}`, at))
	mat, _ := json.Marshal(f.matrix(`container_cpu_usage_seconds_total{namespace="shop"}`, v1.Range{Start: at.Add(-15 * time.Minute), End: at, Step: 5 * time.Minute}))
	return []string{
		`{"status":"success","data":{"resultType":"vector","result":` + string(vec) + `}}`,
		`{"status":"success","data":{"resultType":"matrix","result":` + string(mat) + `},"warnings":["w"],"infos":["i"]}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"h"},"histogram":[1,{"count":"2","sum":"3","buckets":[[1,"0","1","2"]]}]}]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"\u00e9\ud83d\ude00\n"},"values":[[1.5,"NaN"],[2,"-Inf"],[-3.25,"1e-3"]]}],"stats":{"timings":{"evalTotalTime":0.1}}}}`,
		`{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:1: parse error"}`,
		`{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"1"]],"metric":null,"values":[[2,"2"]]}]}}`,
		`  {"data" : {"result": [], "resultType" : "vector"}, "status": "success"}  `,
	}
}

// The keys readAnswer reads. client_golang matched the answer's and
// data's keys as encoding/json does, ignoring case; an answer that spells
// one otherwise is not compared.
var answerKeys = []string{"status", "errortype", "error", "data", "resulttype", "result", "metric", "value", "values"}

// surrogateEscape: client_golang and encoding/json read broken UTF-16
// escapes differently; readAnswer is encoding/json's, and such answers
// are not compared.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// comparable: body is UTF-8 JSON (by encoding/json) without histograms
// (which client_golang decodes and calibrate does not), surrogate
// escapes or keys spelt in another case.
func comparable(body []byte) bool {
	if !utf8.Valid(body) || surrogateEscape.Match(body) || bytes.Contains(bytes.ToLower(body), []byte("histogram")) {
		return false
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	return keysExact(v)
}

func keysExact(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			for _, key := range answerKeys {
				if strings.EqualFold(k, key) && k != key && !(key == "errortype" && k == "errorType") && !(key == "resulttype" && k == "resultType") {
					return false
				}
			}
			if !keysExact(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !keysExact(e) {
				return false
			}
		}
	}
	return true
}
