package calibrate

import (
	"fmt"
	"io"
	"strconv"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Bounds on one Prometheus answer. The server is not trusted to be small:
// an answer is read as a stream and checked while it is read, so that
// what it costs is what calibrate keeps of it (measure.go keeps each
// series' samples on the grid, 16 bytes each), never its size.
const (
	// MaxAnswerBytes bounds what is read of one answer, after gzip. An
	// answer at the two bounds below is about 150 MB of Prometheus's JSON
	// (4,000,000 samples of about 33 bytes, 100,000 series of about 100
	// bytes of labels); beyond 256 MiB there is only padding or labels
	// calibrate does not ask for, and reading them would only take time.
	MaxAnswerBytes = 256 << 20
	// MaxSeries bounds the series of one answer. calibrate's queries give
	// one series per pod of a namespace over --since: 100,000 is a new pod
	// every six seconds for a week.
	MaxSeries = 100_000
	// MaxSamples bounds the samples of one answer: 4,000,000 is 1,984 pods
	// that ran the whole of a 7d --since at the 5m --step (2,016 samples
	// each). Kept, they cost 64 MB; a namespace holds at most six answers
	// at once, so that a run stays within a few hundred MB whatever the
	// server sends.
	MaxSamples = 4_000_000

	// maxSeriesSamples is more than Prometheus returns of one series (it
	// refuses range queries of more than 11,000 steps).
	maxSeriesSamples = 11_000
	// maxLabels bounds one series' labels: calibrate's queries aggregate
	// to at most four; a raw series has a few dozen.
	maxLabels = 128
)

// limits are the bounds one answer is read with (tests and the fuzz
// target set their own).
type limits struct {
	bytes           int64
	series, samples int
}

// boundedBody reads at most left bytes, then fails with a LimitError.
type boundedBody struct {
	r    io.Reader
	left int64
	err  error
}

func newBoundedBody(r io.Reader, n int64) *boundedBody {
	return &boundedBody{r: r, left: n, err: &LimitError{What: fmt.Sprintf("exceeds %s, the most calibrate reads of one answer", sizeName(n))}}
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the bound says there is more
	}
	n, err := b.r.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return n - 1, b.err
	}
	return n, err
}

// sizeName writes n bytes as "256 MiB" or "4 KiB".
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// thousands writes n as "100,000".
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// SeriesFunc receives each series of an answer as it is read: its labels
// and its samples (exactly one for an instant vector). The map and the
// slice are reused for the next series: keep what is in them, not them.
type SeriesFunc func(m model.Metric, samples []model.SamplePair) error

// answer reads one answer of the query and query_range endpoints.
type answer struct {
	s    *scanner
	want model.ValueType
	lim  limits
	each SeriesFunc

	status, errorType, errorMsg string
	resultType                  string
	sawData, sawResult          bool
	histogram                   bool
	series, samples             int
	m                           model.Metric
	pts                         []model.SamplePair
	names                       map[string]model.LabelName // label names seen, so that each is allocated once
}

// readAnswer reads an answer whose result should be of type want, handing
// each series to each as it is read. It returns the answer's status; an
// answer with status "error" is an error, as client_golang made it. Keys
// other than the ones read are skipped, whatever their size.
func readAnswer(r io.Reader, want model.ValueType, lim limits, each SeriesFunc) (string, error) {
	a := &answer{s: newScanner(r), want: want, lim: lim, each: each, m: model.Metric{}, names: map[string]model.LabelName{}}
	a.s.object(a.top)
	return a.status, a.end()
}

func (a *answer) top(key []byte) {
	switch string(key) {
	case "status":
		a.status = string(a.s.str(true))
	case "errorType":
		a.errorType = string(a.s.str(true))
	case "error":
		a.errorMsg = string(a.s.str(true))
	case "data":
		if a.sawData {
			a.s.syntax("two data members") // the first one's series are handed over already
		}
		a.sawData = true
		if !a.s.null() {
			a.s.object(a.data)
		}
	default:
		a.s.skip()
	}
}

func (a *answer) data(key []byte) {
	switch string(key) {
	case "resultType":
		a.resultType = string(a.s.str(true))
		if a.status != "error" && a.resultType != a.want.String() {
			a.s.fail(a.typeError()) // its result is not read as what it is not
		}
	case "result":
		if a.sawResult {
			a.s.syntax("two results")
		}
		a.sawResult = true
		a.s.array(a.series1)
	default:
		a.s.skip()
	}
}

func (a *answer) typeError() error {
	name := map[model.ValueType]string{model.ValVector: "an instant vector", model.ValMatrix: "a range vector"}[a.want]
	got := a.resultType
	if got == "" {
		got = "no result type"
	}
	return fmt.Errorf("expected %s, got %s", name, got)
}

func (a *answer) end() error {
	switch {
	case a.s.err != nil:
		return a.s.err
	case a.status == "error":
		return &v1.Error{Type: v1.ErrorType(a.errorType), Msg: a.errorMsg}
	case a.resultType != a.want.String():
		return a.typeError()
	case !a.sawResult:
		return &v1.Error{Type: v1.ErrBadResponse, Msg: "malformed answer: no result"}
	}
	return nil
}

// series1 reads one series of the result.
func (a *answer) series1() {
	if a.series++; a.series > a.lim.series {
		a.s.fail(&LimitError{What: fmt.Sprintf("has more than %s series, the most calibrate reads of one answer (a shorter --since has fewer pods)", thousands(a.lim.series))})
		return
	}
	clear(a.m)
	a.pts, a.histogram = a.pts[:0], false
	a.s.object(a.member)
	if a.s.err != nil {
		return
	}
	if a.want == model.ValVector && (a.histogram || len(a.pts) == 0) {
		// client_golang gave a histogram sample, or one without a value, 0
		a.pts = append(a.pts[:0], model.SamplePair{})
	}
	if err := a.each(a.m, a.pts); err != nil {
		a.s.fail(err)
	}
}

func (a *answer) member(key []byte) {
	switch k := string(key); {
	case k == "metric":
		if !a.s.null() {
			a.s.object(a.label)
		}
	case k == "value" && a.want == model.ValVector:
		a.pts = a.pts[:0]
		if !a.s.null() {
			a.pair()
		}
	case k == "values" && a.want == model.ValMatrix:
		if !a.s.null() { // a second values member adds to the first, as client_golang read it
			a.s.array(a.pair)
		}
	case k == "histogram" && a.want == model.ValVector:
		a.histogram = a.s.peek() != 'n'
		a.s.skip()
	default:
		a.s.skip()
	}
}

func (a *answer) label(key []byte) {
	if len(a.m) >= maxLabels {
		a.s.fail(&LimitError{What: fmt.Sprintf("has a series of more than %d labels", maxLabels)})
		return
	}
	name, ok := a.names[string(key)]
	if !ok {
		name = model.LabelName(key)
		if len(a.names) < 4*maxLabels {
			a.names[string(name)] = name
		}
	}
	if a.s.null() {
		a.m[name] = ""
		return
	}
	a.m[name] = model.LabelValue(a.s.str(true))
}

// pair reads one [timestamp, "value"] sample.
func (a *answer) pair() {
	switch a.samples++; {
	case a.samples > a.lim.samples:
		a.s.fail(&LimitError{What: fmt.Sprintf("has more than %s samples, the most calibrate reads of one answer (a larger --step or a shorter --since asks for fewer)", thousands(a.lim.samples))})
		return
	case len(a.pts) >= maxSeriesSamples:
		a.s.fail(&LimitError{What: fmt.Sprintf("has a series of more than %s samples, more than Prometheus returns", thousands(maxSeriesSamples))})
		return
	}
	if !a.s.expect('[', "a [timestamp, value] pair") {
		return
	}
	var p model.SamplePair
	if w := a.s.word(); !validNumber(w) || p.Timestamp.UnmarshalJSON(w) != nil {
		a.s.syntax("a timestamp expected, %q found", w)
		return
	}
	a.s.expect(',', "','")
	v, err := strconv.ParseFloat(string(a.s.str(true)), 64)
	if err != nil {
		a.s.syntax("a sample value: %v", err)
	}
	if a.s.expect(']', "']' after [timestamp, value]") {
		p.Value = model.SampleValue(v)
		a.pts = append(a.pts, p)
	}
}
