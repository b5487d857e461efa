package analyze

import (
	"sort"
	"strings"
	"time"

	"github.com/capreport/capreport/analyze/inventory"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// knownAnnotations are capreport.io/ keys that are not assumptions.
var knownAnnotations = map[string]bool{PartitionsAnnotation: true}

// parseAnnotations reads the capreport.io/ assumption annotations of one
// object. Each bad value is a finding at the annotation's line (the
// object's when unknown), and the value falls through to the next layer;
// an unknown capreport.io/ key is a finding too (most are typos of a real
// key). Each value set records that same line, which pick reports as Where.
func parseAnnotations(ann map[string]string, o render.Origin, what string) (config.Assumptions, []check.Finding) {
	var a config.Assumptions
	var fs []check.Finding
	keys := make([]string, 0, len(ann))
	for k := range ann {
		if strings.HasPrefix(k, AnnotationPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if knownAnnotations[k] {
			continue
		}
		at := inventory.AnnotationOrigin(o, k)
		key := config.Key(strings.TrimPrefix(k, AnnotationPrefix))
		if !isAssumptionKey(key) {
			fs = append(fs, inventory.FindingAt(at, check.UnknownAnnotation, check.SeverityWarning,
				"use one of: "+strings.Join(annotationNames(), ", "),
				"%s: annotation %s is not one capreport reads", what, k))
			continue
		}
		if err := a.Set(key, ann[k], at.Line); err != nil {
			fs = append(fs, inventory.FindingAt(at, check.InvalidAnnotation, check.SeverityError,
				"fix the value; until then the next source (.capreport.yaml or the built-in default) is used",
				"%s: %s: %v", what, k, err))
		}
	}
	return a, fs
}

func isAssumptionKey(k config.Key) bool {
	for _, x := range config.AllKeys() {
		if x == k {
			return true
		}
	}
	return false
}

func annotationNames() []string {
	out := make([]string, 0, len(config.AllKeys())+1)
	for _, k := range config.AllKeys() {
		out = append(out, AnnotationPrefix+string(k))
	}
	return append(out, PartitionsAnnotation)
}

// parseIgnores collects ignore-check.capreport.io/<ID> annotations into
// into; an empty check ID or reason is a finding and is not recorded.
func parseIgnores(ann map[string]string, o render.Origin, what string, into map[string]string) []check.Finding {
	var fs []check.Finding
	keys := make([]string, 0)
	for k := range ann {
		if strings.HasPrefix(k, IgnoreAnnotationPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		id := strings.TrimPrefix(k, IgnoreAnnotationPrefix)
		reason := strings.TrimSpace(ann[k])
		at := inventory.AnnotationOrigin(o, k)
		switch {
		case id == "":
			fs = append(fs, inventory.FindingAt(at, check.IgnoreWithoutReason, check.SeverityError, "name the check: ignore-check.capreport.io/<check-id>",
				"%s: annotation %s names no check", what, k))
		case reason == "":
			fs = append(fs, inventory.FindingAt(at, check.IgnoreWithoutReason, check.SeverityError, "say why in the value, e.g. \"batch queue, latency irrelevant\"",
				"%s: %s has no reason; an ignore without a reason is not honoured", what, k))
		default:
			into[id] = reason
		}
	}
	return fs
}

// layers are the sources of assumptions, highest priority first.
type layers struct {
	autoscaler, target     config.Assumptions
	autoscalerAt, targetAt *render.Origin
	workload, defaults     config.Assumptions
	configFile             string
}

// pick takes a field from the first layer that sets it.
func pick[T any](l layers, get func(*config.Assumptions) config.Opt[T], builtin T) Assumed[T] {
	if o := get(&l.autoscaler); o.Set {
		return Assumed[T]{Value: o.Value, From: FromAnnotation, Where: annotationWhere(l.autoscalerAt, o.Line)}
	}
	if o := get(&l.target); o.Set {
		return Assumed[T]{Value: o.Value, From: FromAnnotation, Where: annotationWhere(l.targetAt, o.Line)}
	}
	if o := get(&l.workload); o.Set {
		from := FromConfig
		if o.Measured != nil {
			from = FromMeasured
		}
		return Assumed[T]{Value: o.Value, From: from, Where: &render.Origin{File: l.configFile, Line: o.Line}, Measured: o.Measured}
	}
	if o := get(&l.defaults); o.Set {
		return Assumed[T]{Value: o.Value, From: FromConfig, Where: &render.Origin{File: l.configFile, Line: o.Line}}
	}
	return Assumed[T]{Value: builtin, From: FromDefault}
}

// annotationWhere locates an annotation assumption: the object's origin
// at line, the line parseAnnotations recorded (the annotation's own, else
// the object's). The per-key lines are dropped: Where is one place.
func annotationWhere(at *render.Origin, line int) *render.Origin {
	if at == nil {
		return nil
	}
	w := *at
	w.AnnotationLines = nil
	if line > 0 {
		w.Line = line
	}
	return &w
}

func cluster[T any](o config.Opt[T], file string) Assumed[T] {
	if o.Set {
		return Assumed[T]{Value: o.Value, From: FromCluster, Where: &render.Origin{File: file, Line: o.Line}}
	}
	return Assumed[T]{Value: o.Value, From: FromDefault}
}

// resolveAssumptions layers the assumptions and the controller settings;
// inferred is the signal read off the metrics.
func resolveAssumptions(l layers, cfg *config.Config, inferred Signal) Assumptions {
	var a Assumptions
	a.Signal = pick(l, func(x *config.Assumptions) config.Opt[Signal] { return x.Signal }, inferred)
	if a.Signal.From == FromDefault {
		a.Signal.From = FromInferred
	}
	podRate := DefaultPodRateOther
	if a.Signal.Value == SignalSaturating {
		podRate = DefaultPodRateSaturating
	}
	a.DeadTime = pick(l, func(x *config.Assumptions) config.Opt[time.Duration] { return x.DeadTime }, DefaultDeadTime)
	a.PodRate = pick(l, func(x *config.Assumptions) config.Opt[float64] { return x.PodRate }, podRate)
	a.LatencyTarget = pick(l, func(x *config.Assumptions) config.Opt[time.Duration] { return x.LatencyTarget }, 0)
	a.Overload = pick(l, func(x *config.Assumptions) config.Opt[[]float64] { return x.Overload }, DefaultOverloads())
	a.Demand = pick(l, func(x *config.Assumptions) config.Opt[float64] { return x.Demand }, 0)
	a.Step = pick(l, func(x *config.Assumptions) config.Opt[float64] { return x.Step }, DefaultStep)
	a.MetricWindow = pick(l, func(x *config.Assumptions) config.Opt[time.Duration] { return x.MetricWindow }, DefaultMetricWindow)
	a.SaturatedEfficiency = pick(l, func(x *config.Assumptions) config.Opt[float64] { return x.SaturatedEfficiency }, DefaultSaturatedEfficiency)

	c := cfg.Cluster
	a.SyncPeriod = cluster(c.SyncPeriod, cfg.File)
	a.Tolerance = cluster(c.Tolerance, cfg.File)
	a.DownscaleStabilization = cluster(c.DownscaleStabilization, cfg.File)
	a.CPUInitializationPeriod = cluster(c.CPUInitializationPeriod, cfg.File)
	a.InitialReadinessDelay = cluster(c.InitialReadinessDelay, cfg.File)
	a.KubeVersion = cluster(c.KubeVersion, cfg.File)
	return a
}
