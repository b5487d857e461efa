// Package calibrate measures a workload's assumptions (dead time, pod
// rate, demand, a design overload) from the history a cluster's Prometheus
// already keeps, and writes them into .capreport.yaml with their provenance.
//
// Measurement is pure arithmetic over query results (this file and
// stats.go); the queries are batched by namespace (a fixed number per
// namespace, plus one per workload with its own query), never one per pod.
// prom.go asks Prometheus, and answer.go reads its answers as streams
// within bounds (a server may be hostile); yamlfile.go edits the
// configuration.
package calibrate

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/capreport/capreport/config"
)

// Row says which bill a workload's autoscaler is priced by, and so which
// rate is measured.
type Row int

const (
	RowNone Row = iota // dead time only
	RowSize            // requests served per pod at 100 % of its CPU request
	RowTime            // messages consumed per pod
)

// Workload is one autoscaled workload to measure: the target the
// autoscaler scales, whose pods Prometheus knows.
type Workload struct {
	ID                    string // the autoscaler's report ID, for messages
	Namespace, Kind, Name string // the target workload
	Row                   Row
	ScaledObject          string // KEDA ScaledObject name, for the cross-check
	// RequestQuery and ConsumerQuery override the default per-pod queries
	// (config workloads[].queries); "" keeps the default.
	RequestQuery, ConsumerQuery string
	// Skip lists keys not to measure (an annotation sets them, and wins).
	Skip map[config.Key]bool
}

// Ref is namespace/Kind/name of the target.
func (w Workload) Ref() string { return w.Namespace + "/" + w.Kind + "/" + w.Name }

// Options tune a run. Zero fields take the defaults of Defaults().
type Options struct {
	Now      time.Time     // the end of the window (injected: tests pin it)
	Since    time.Duration // how far back to look (default 7d)
	Step     time.Duration // rate resolution and range-query step (default 5m)
	Quantile float64       // dead-time quantile (default 0.9)
	// MinPods is the fewest pods a dead time may rest on (default 5);
	// MinSamples the fewest rate samples (default 12).
	MinPods, MinSamples int
	// MaxSpread is the widest interquartile range over the median that is
	// still one number (default 1).
	MaxSpread float64
	// MinUtilization is the least CPU use over request at which a sample
	// counts toward a pod rate (default 0.05): an idle pod's ratio is noise.
	MinUtilization float64
}

// Defaults fills the zero fields of o.
func (o Options) Defaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Since, 7*24*time.Hour)
	def(&o.Step, 5*time.Minute)
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC().Truncate(time.Second)
	if o.Quantile <= 0 || o.Quantile > 1 {
		o.Quantile = 0.9
	}
	if o.MinPods <= 0 {
		o.MinPods = 5
	}
	if o.MinSamples <= 0 {
		o.MinSamples = 12
	}
	if o.MaxSpread <= 0 {
		o.MaxSpread = 1
	}
	if o.MinUtilization <= 0 {
		o.MinUtilization = 0.05
	}
	// Prometheus refuses range queries of more than 11,000 points.
	if min := o.Since / 10000; o.Step < min {
		o.Step = min.Truncate(time.Second) + time.Second
	}
	return o
}

// Value is one measured assumption, as written into the file.
type Value struct {
	Key    config.Key
	Text   string  // as written: "47s", "85.3", "2.5x"
	Number float64 // unrounded: seconds, per second, or the factor
	Record config.Measurement
}

// Unwritten is a measurement that was not written, and why.
type Unwritten struct {
	Workload string // namespace/Kind/name of the target
	Key      config.Key
	Message  string
}

func (f Unwritten) String() string {
	return fmt.Sprintf("%s: %s: %s", f.Workload, f.Key.YAMLName(), f.Message)
}

// Result is what one workload's measurement gave.
type Result struct {
	Workload  Workload
	Values    []Value
	Unwritten []Unwritten
	// Notes say how a value was cross-checked; they do not stop a write.
	Notes []string
}

// Source answers calibrate's queries. It hands each series of an answer
// to the SeriesFunc as it reads it, so that no answer is ever held whole:
// a query costs what calibrate keeps of its answer, whatever the server
// sends (NewClient's also bounds what it reads). Query's series have
// exactly one sample each.
type Source interface {
	Query(ctx context.Context, query string, ts time.Time, each SeriesFunc) error
	QueryRange(ctx context.Context, query string, r v1.Range, each SeriesFunc) error
}

// Counting counts the queries a Source answers.
type Counting struct {
	Source
	n atomic.Int64
}

// Queries is how many queries were issued.
func (c *Counting) Queries() int { return int(c.n.Load()) }

func (c *Counting) Query(ctx context.Context, q string, ts time.Time, each SeriesFunc) error {
	c.n.Add(1)
	return c.Source.Query(ctx, q, ts, each)
}

func (c *Counting) QueryRange(ctx context.Context, q string, r v1.Range, each SeriesFunc) error {
	c.n.Add(1)
	return c.Source.QueryRange(ctx, q, r, each)
}

// QueriesPerNamespace bounds the queries one namespace costs; a workload
// with its own request or consumer query adds one each.
const QueriesPerNamespace = 8

func fmtNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// inRange holds a measured value to the documented range of key.
func inRange(key config.Key, v float64) error {
	r, ok := config.RangeOf(string(key))
	if !ok {
		return fmt.Errorf("%s has no documented range", key) // every measured key has one (TestMeasuredKeysHaveRanges)
	}
	if !r.Contains(v) {
		return fmt.Errorf("measured %s is outside the range %s", fmtNumber(roundSig(v, 3)), r)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
