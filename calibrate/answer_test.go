package calibrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// got is what readAnswer handed over, copied.
type got struct {
	Metric model.Metric
	Pts    []model.SamplePair
}

func read(body string, want model.ValueType, lim limits) ([]got, error) {
	var out []got
	_, err := readAnswer(newBoundedBody(strings.NewReader(body), lim.bytes), want, lim, func(m model.Metric, pts []model.SamplePair) error {
		out = append(out, got{m.Clone(), append([]model.SamplePair(nil), pts...)})
		return nil
	})
	return out, err
}

var testLimits = limits{bytes: 1 << 20, series: 10, samples: 100}

// answerCase is one answer and what reading it gives: the series, or an
// error saying err (a LimitError when limit).
type answerCase struct {
	name  string
	body  string
	want  model.ValueType
	lim   limits
	got   []got
	err   string
	limit bool
}

func (c answerCase) run(t *testing.T) {
	t.Helper()
	lim := c.lim
	if lim == (limits{}) {
		lim = testLimits
	}
	want := c.want
	if want == model.ValNone {
		want = model.ValMatrix
	}
	g, err := read(c.body, want, lim)
	var le *LimitError
	switch {
	case c.err == "" && err != nil:
		t.Fatalf("err = %v", err)
	case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
		t.Fatalf("err = %v, want one saying %q", err, c.err)
	case c.err != "" && errors.As(err, &le) != c.limit:
		t.Fatalf("err = %#v: a LimitError is %v, want %v", err, !c.limit, c.limit)
	case c.err == "" && !reflect.DeepEqual(g, c.got):
		t.Fatalf("got %+v\nwant %+v", g, c.got)
	}
}

func pod(p string) model.Metric { return model.Metric{"namespace": "shop", "pod": model.LabelValue(p)} }

func pairs(tv ...float64) []model.SamplePair {
	var out []model.SamplePair
	for i := 0; i+1 < len(tv); i += 2 {
		out = append(out, model.SamplePair{Timestamp: model.Time(math.Round(tv[i] * 1000)), Value: model.SampleValue(tv[i+1])})
	}
	return out
}

func seriesJSON(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"metric":{"pod":"p%d"},"values":[[1,"1"]]}`, i)
	}
	return matrixJSON(strings.Join(parts, ","))
}

func labelsJSON(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"l%d":"v"`, i)
	}
	return strings.Join(parts, ",")
}

func labels(n int) model.Metric {
	m := model.Metric{}
	for i := 0; i < n; i++ {
		m[model.LabelName(fmt.Sprintf("l%d", i))] = "v"
	}
	return m
}

func matrixJSON(result string) string {
	return `{"status":"success","data":{"resultType":"matrix","result":[` + result + `]}}`
}

func TestReadAnswer(t *testing.T) {
	for _, c := range []answerCase{
		{name: "matrix", body: " {\"status\" : \"success\",\n\"data\":{\"resultType\":\"matrix\",\"result\":[" +
			`{"metric":{"namespace":"shop","pod":"a"},"values":[[1764583200,"1.5"],[1764583500.25,"-2.5e-3"]]},` +
			`{"metric":{"namespace":"shop","pod":"b"},"values":[]}],"stats":{"timings":{"x":[1,2.5e3,true,null]}}},"warnings":["w"]}`,
			got: []got{{pod("a"), pairs(1764583200, 1.5, 1764583500.25, -2.5e-3)}, {pod("b"), nil}}},
		{name: "vector", want: model.ValVector, body: `{"status":"success","data":{"resultType":"vector","result":[` +
			`{"metric":{"namespace":"shop","pod":"a"},"value":[1764583200,"+Inf"]},{"metric":{"pod":"h"},"histogram":[1,{"count":"2"}]},{"metric":null}]}}`,
			got: []got{{pod("a"), pairs(1764583200, math.Inf(1))}, {model.Metric{"pod": "h"}, pairs(0, 0)}, {model.Metric{}, pairs(0, 0)}}},
		{name: "strings as encoding/json reads them", body: matrixJSON(`{"metric":{"a":"\ud83d\ude00\u00e9\"\\\/\n","b":"\ud800x","c":"` + "\xff" + `","d":null},"values":null}`),
			got: []got{{model.Metric{"a": "😀é\"\\/\n", "b": "\uFFFDx", "c": "\uFFFD", "d": ""}, nil}}},
		{name: "a second values member adds to the first", body: matrixJSON(`{"values":[[1,"1"]],"metric":{"pod":"a"},"values":[[2,"2"]]}`),
			got: []got{{model.Metric{"pod": "a"}, pairs(1, 1, 2, 2)}}},
		{name: "an error answer", body: `{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`, err: "bad_data: parse error at char 3"},
		{name: "a scalar for a range query", body: `{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}`, err: "expected a range vector, got scalar"},
		{name: "no result", body: `{"status":"success","data":{"resultType":"matrix"}}`, err: "no result"},
		{name: "two results", body: `{"status":"success","data":{"resultType":"matrix","result":[],"result":[]}}`, err: "two results"},
		{name: "cut short", body: `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{}`, err: "malformed answer: it ends early"},
		{name: "a control character", body: matrixJSON("{\"metric\":{\"pod\":\"a\tb\"}}"), err: "a control character"},
		{name: "a timestamp that is no number", body: matrixJSON(`{"values":[["1","1"]]}`), err: "a timestamp expected"},
		{name: "a value that is no number", body: matrixJSON(`{"values":[[1,"one"]]}`), err: "a sample value"},
		{name: "three in a pair", body: matrixJSON(`{"values":[[1,"1","2"]]}`), err: "']' after [timestamp, value] expected"},
		{name: "bytes", body: seriesJSON(3), lim: limits{bytes: 50, series: 10, samples: 10}, err: "exceeds 50 bytes", limit: true},
		{name: "bytes, exactly", body: seriesJSON(1), lim: limits{bytes: int64(len(seriesJSON(1))), series: 10, samples: 10},
			got: []got{{model.Metric{"pod": "p0"}, pairs(1, 1)}}},
		{name: "series", body: seriesJSON(11), err: "has more than 10 series", limit: true},
		{name: "samples", body: seriesJSON(3), lim: limits{bytes: 1 << 20, series: 10, samples: 2}, err: "has more than 2 samples", limit: true},
		{name: "one series' samples", body: matrixJSON(`{"values":[` + strings.Repeat(`[1,"1"],`, maxSeriesSamples) + `[1,"1"]]}`),
			lim: limits{bytes: 1 << 20, series: 10, samples: 1 << 20}, err: "a series of more than 11,000 samples", limit: true},
		{name: "labels", body: matrixJSON(`{"metric":{` + labelsJSON(maxLabels+1) + `}}`), err: "more than 128 labels", limit: true},
		{name: "labels, exactly", body: matrixJSON(`{"metric":{` + labelsJSON(maxLabels) + `},"values":[]}`), got: []got{{labels(maxLabels), nil}}},
		{name: "a long string", body: matrixJSON(`{"metric":{"pod":"` + strings.Repeat("a", maxString+1) + `"}}`), err: "a string longer than 16 KiB", limit: true},
		{name: "a long string skipped", body: `{"warnings":["` + strings.Repeat("a", maxString+1) + `"],"status":"success","data":{"resultType":"matrix","result":[]}}`},
		{name: "nesting", body: `{"status":"success","data":{"resultType":"matrix","result":[],"stats":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}}`,
			err: "nests deeper than 64", limit: true},
	} {
		t.Run(c.name, c.run)
	}
}

// The client asks and reads as client_golang's v1 API did: a form POST,
// GET where POST is refused, Prometheus's error answers, gzip.
func TestClientExchange(t *testing.T) {
	var (
		mu      sync.Mutex
		methods []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods = append(methods, r.Method)
		mu.Unlock()
		_ = r.ParseForm()
		switch q := r.Form.Get("query"); {
		case r.Method == http.MethodPost && q == "post refused":
			w.WriteHeader(http.StatusMethodNotAllowed)
		case q == "bad":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"status":"error","errorType":"bad_data","error":"1:1: parse error"}`)
		case q == "inconsistent":
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, matrixJSON(""))
		default:
			if r.Form.Get("timeout") != "1m0s" || r.Form.Get("step") != "300" || r.Form.Get("start") != "1764583200" {
				t.Errorf("form %v", r.Form)
			}
			_, _ = io.WriteString(w, matrixJSON(`{"metric":{"pod":"a"},"values":[[1764583200,"2"]]}`))
		}
	}))
	defer srv.Close()
	src, err := NewClient(ClientOptions{URL: srv.URL, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1764583200, 0)
	ask := func(q string) ([]got, error) {
		var out []got
		err := src.QueryRange(context.Background(), q, v1.Range{Start: start, End: start.Add(time.Hour), Step: 5 * time.Minute},
			func(m model.Metric, pts []model.SamplePair) error {
				out = append(out, got{m.Clone(), append([]model.SamplePair(nil), pts...)})
				return nil
			})
		return out, err
	}
	for _, q := range []string{"up", "post refused"} {
		if g, err := ask(q); err != nil || !reflect.DeepEqual(g, []got{{model.Metric{"pod": "a"}, pairs(1764583200, 2)}}) {
			t.Errorf("%s: %+v, %v", q, g, err)
		}
	}
	mu.Lock()
	if want := []string{http.MethodPost, http.MethodPost, http.MethodGet}; !reflect.DeepEqual(methods, want) {
		t.Errorf("requests %v, want %v", methods, want)
	}
	mu.Unlock()
	var ae *v1.Error
	if _, err := ask("bad"); !errors.As(err, &ae) || ae.Type != v1.ErrBadData || ae.Msg != "1:1: parse error" {
		t.Errorf("a 400 with an error answer: %#v", err)
	}
	if _, err := ask("inconsistent"); err == nil || !strings.Contains(err.Error(), "inconsistent body") {
		t.Errorf("a 422 with a success answer: %v", err)
	}
}

// oldDecode is how calibrate read an answer before issue 31: client_golang's
// v1 API, given the body as if over HTTP.
func oldDecode(body []byte, want model.ValueType) (model.Value, error) {
	api := v1.NewAPI(bodyClient(body))
	if want == model.ValVector {
		v, _, err := api.Query(context.Background(), "q", time.Time{})
		return v, err
	}
	v, _, err := api.QueryRange(context.Background(), "q", v1.Range{Step: time.Second})
	return v, err
}

type bodyClient []byte

func (bodyClient) URL(ep string, _ map[string]string) *url.URL { return &url.URL{Path: ep} }

func (b bodyClient) Do(context.Context, *http.Request) (*http.Response, []byte, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil))}, b, nil
}

// sameAsOld: the series client_golang decoded from the same body.
func sameAsOld(t *testing.T, body []byte, want model.ValueType, g []got) {
	t.Helper()
	old, err := oldDecode(body, want)
	if err != nil {
		return // client_golang refused it: nothing to agree on
	}
	var o []got
	switch v := old.(type) {
	case model.Vector:
		for _, s := range v {
			o = append(o, got{s.Metric, []model.SamplePair{{Timestamp: s.Timestamp, Value: s.Value}}})
		}
	case model.Matrix:
		for _, s := range v {
			o = append(o, got{s.Metric, s.Values})
		}
	}
	if len(o) != len(g) {
		t.Fatalf("%d series, client_golang %d", len(g), len(o))
	}
	for i := range g {
		same := len(g[i].Metric) == len(o[i].Metric) && len(g[i].Pts) == len(o[i].Pts)
		for k, v := range o[i].Metric {
			same = same && g[i].Metric[k] == v
		}
		for j := range g[i].Pts {
			same = same && g[i].Pts[j].Equal(&o[i].Pts[j])
		}
		if !same {
			t.Fatalf("series %d: %+v, client_golang %+v", i, g[i], o[i])
		}
	}
}
