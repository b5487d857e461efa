// Package config reads a repository's .capreport.yaml: the sources to
// render and their value sets, assumption defaults and per-workload
// overrides, the cluster's HPA controller settings, the checks to run and
// what fails the run.
//
// The file is parsed node by node (not decoded into structs) so that every
// error, including an unknown key, names file:line, and every value keeps the
// line it came from: the report says where each assumption came from.
//
// An example, with every section:
//
//	sources:
//	  - path: charts/api            # relative to the scanned root
//	    releaseName: api            # shared by every value set below
//	    namespace: prod
//	    valueSets:                  # one render per set
//	      - name: staging
//	        namespace: staging
//	        values: [values-staging.yaml]   # chart dir, then root
//	      - name: prod
//	        values: [values-prod.yaml]
//	        set: [replicaCount=3]
//	  - path: deploy/overlays/prod  # one render; type inferred
//	defaults:
//	  deadTime: 90s
//	  podRate: 100
//	workloads:                      # later entries win, key by key
//	  - namespace: prod
//	    kind: Deployment            # matches the autoscaler or its target
//	    name: "api-*"
//	    deadTime: 45s
//	    overload: [3x, 10x]
//	cluster:
//	  syncPeriod: 15s
//	  tolerance: 0.1
//	checks:
//	  exclude: [assumption-default]
//	  allowIgnores: true
//	failOn: warning
package config

import (
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// FileName is the configuration file's name at the root of a repository.
const FileName = ".capreport.yaml"

// Fail thresholds for FailOn.
const (
	FailOnError   = "error"
	FailOnWarning = "warning"
	FailOnNever   = "never"
)

// Config is a parsed .capreport.yaml. The zero value is not useful; start
// from Default() or Load().
type Config struct {
	// File is the path the configuration was loaded from; "" for Default().
	File string
	// Sources are rendered as written; each replaces discovery under its
	// path (the rest of the root is still discovered), so a chart listed
	// with two value sets renders twice and not a third time by default.
	Sources []Source
	// Defaults apply to every workload that neither an annotation nor a
	// Workloads entry covers.
	Defaults Assumptions
	// Workloads override assumptions for the workloads they match.
	Workloads []Workload
	// Cluster holds the kube-controller-manager HPA settings.
	Cluster Cluster
	// Checks selects checks and whether ignore annotations count.
	Checks Checks
	// RepositoryURLs are git URLs that name this repository (repository.urls):
	// Flux GitRepositories and Argo CD sources with one of them are read
	// from this checkout.
	RepositoryURLs []string
	// RepositorySources map GitOps sources of other repositories to
	// directories of this one (repository.sources, --source's equivalent).
	RepositorySources []SourceMapping
	// FailOnDefaults keeps findings that rest on built-in defaults at their
	// full severity (failOnDefaults: true); by default they are at most
	// warnings.
	FailOnDefaults bool
	// FailOn is FailOnError (default), FailOnWarning or FailOnNever.
	FailOn string
	// FailOnLine is the line of failOn, 0 when defaulted.
	FailOnLine int
	// Fetch is the fetch: key, which no longer turns fetching on: it made
	// plain `capreport .` on a pull request's checkout send requests
	// wherever the pull request's charts point. Only the person running
	// capreport enables fetching (--fetch); a run warns that fetch: true
	// is ignored. The key still parses, so that files that have it load.
	Fetch Opt[bool]
}

// Source is one chart, overlay or directory to render, with one or more
// value sets (a chart rendered once per set; other types have one set).
type Source struct {
	// Path is relative to the scanned root, slash-separated.
	Path string
	// Type is "helm", "kustomize" or "plain"; "" lets the renderer infer it.
	Type string
	// ValueSets has at least one entry after Load. A source written without
	// valueSets has a single set built from its own name, releaseName,
	// namespace, values and set keys; with valueSets, those keys are shared
	// defaults that each set extends (values and set pairs are prepended).
	ValueSets []ValueSet
	Line      int
}

// ValueSet is one way of rendering a Helm chart: helm template's
// --values/--set/--namespace and the release name.
type ValueSet struct {
	// Name tells renders of one chart apart (Origin.Source "path@name").
	Name        string
	ReleaseName string
	Namespace   string
	// Values are values files merged in order. The renderer looks a
	// relative path up in the chart directory first, then in the scanned
	// root; either way it must stay inside the root (Load refuses absolute
	// paths and "..", since the file may come from an untrusted pull request).
	Values []string
	// Set are key=value pairs with helm's --set syntax, applied after Values.
	Set  []string
	Line int
}

// Opt is a setting that may be absent from the file. Value always holds the
// effective value (the built-in default when Set is false); Line is where
// the file set it.
type Opt[T any] struct {
	Value T
	Set   bool
	Line  int
	// Measured is set when `capreport calibrate` measured the value (a
	// workloads entry's measured: record); the value's provenance is then
	// "measured".
	Measured *Measurement
}

func (o *Opt[T]) set(v T, line int) { o.Value, o.Set, o.Line = v, true, line }

// Assumptions holds the values a manifest cannot say. Unset fields (Set
// false) fall through to the next layer: annotation, workload entry,
// defaults, built-in default.
type Assumptions struct {
	DeadTime            Opt[time.Duration]
	PodRate             Opt[float64] // per second, per pod
	LatencyTarget       Opt[time.Duration]
	Overload            Opt[[]float64] // design overloads, each > 1
	Demand              Opt[float64]   // per second before the step
	Step                Opt[float64]   // demand step factor, > 1
	MetricWindow        Opt[time.Duration]
	SaturatedEfficiency Opt[float64] // (0, 1]
	Signal              Opt[Signal]
}

// Set parses raw as the value of key and records it with its line. The
// error completes `<key>: ` (e.g. `"ninety" is not a duration, expected e.g.
// 90s`); on error the field is left as it was.
func (a *Assumptions) Set(key Key, raw string, line int) error {
	var err error
	switch key {
	case KeyDeadTime:
		err = setWith(&a.DeadTime, raw, line, durationIn(string(key), ParseDuration))
	case KeyPodRate:
		err = setWith(&a.PodRate, raw, line, numberIn(string(key), ParseRate))
	case KeyLatencyTarget:
		err = setWith(&a.LatencyTarget, raw, line, durationIn(string(key), ParseDuration))
	case KeyOverload:
		err = setWith(&a.Overload, raw, line, factorsIn)
	case KeyDemand:
		err = setWith(&a.Demand, raw, line, numberIn(string(key), ParseRate))
	case KeyStep:
		err = setWith(&a.Step, raw, line, numberIn(string(key), ParseFactor))
	case KeyMetricWindow:
		err = setWith(&a.MetricWindow, raw, line, durationIn(string(key), ParseDuration))
	case KeySaturatedEfficiency:
		err = setWith(&a.SaturatedEfficiency, raw, line, numberIn(string(key), ParseFraction))
	case KeySignal:
		err = setWith(&a.Signal, raw, line, ParseSignal)
	default:
		err = &unknownKeyError{key: string(key)}
	}
	return err
}

type unknownKeyError struct{ key string }

func (e *unknownKeyError) Error() string { return "unknown assumption " + e.key }

func setWith[T any](o *Opt[T], raw string, line int, parse func(string) (T, error)) error {
	v, err := parse(raw)
	if err != nil {
		return err
	}
	o.set(v, line)
	return nil
}

// Overlay returns a copy of a with every field that b sets taken from b.
func (a Assumptions) Overlay(b Assumptions) Assumptions {
	over(&a.DeadTime, b.DeadTime)
	over(&a.PodRate, b.PodRate)
	over(&a.LatencyTarget, b.LatencyTarget)
	over(&a.Overload, b.Overload)
	over(&a.Demand, b.Demand)
	over(&a.Step, b.Step)
	over(&a.MetricWindow, b.MetricWindow)
	over(&a.SaturatedEfficiency, b.SaturatedEfficiency)
	over(&a.Signal, b.Signal)
	return a
}

func over[T any](dst *Opt[T], src Opt[T]) {
	if src.Set {
		*dst = src
	}
}

// Workload is a per-workload override. Namespace, Kind and Name are globs
// (doublestar syntax: *, ?, [a-z], {a,b}); an empty glob matches anything.
// Kind is compared case-insensitively.
type Workload struct {
	Namespace, Kind, Name string
	Assumptions           Assumptions
	// Queries override calibrate's default PromQL for this workload.
	Queries Queries
	Line    int
}

// Queries are a workloads entry's queries: overrides of the PromQL that
// `capreport calibrate` runs for it. Each returns one series per pod
// (a "pod" label); $namespace, $name and $window are substituted.
type Queries struct {
	RequestRate  string // requests per second each pod serves (Size row)
	ConsumerRate string // messages per second each pod consumes (Time row)
}

// Matches reports whether the entry covers an object of this namespace,
// kind and name. Patterns were validated by Load; an invalid one (possible
// only in a hand-built Config) matches nothing.
func (w Workload) Matches(namespace, kind, name string) bool {
	return globMatch(w.Namespace, namespace) &&
		globMatch(strings.ToLower(w.Kind), strings.ToLower(kind)) &&
		globMatch(w.Name, name)
}

// LiteralGlob is the workloads glob that matches s and nothing else:
// doublestar's metacharacters (*, ?, [, ], {, } and the escape \ itself)
// are escaped, so a name init or calibrate writes is never a pattern that
// also covers other workloads (or one that does not parse). An empty s
// has no such glob: the empty glob matches anything.
func LiteralGlob(s string) string {
	if !strings.ContainsAny(s, globMeta) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ { // bytes: the metacharacters are ASCII
		if strings.IndexByte(globMeta, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

const globMeta = `*?[]{}\`

// ValidValueSetName reports whether a value set may have this name: a
// render is named path@name, so the name holds no '@', '/' or blank.
func ValidValueSetName(name string) bool { return !strings.ContainsAny(name, "@/ \t") }

func globMatch(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	ok, err := doublestar.Match(pattern, s)
	return err == nil && ok
}

// ObjectRef names one object a workload entry may match.
type ObjectRef struct{ Kind, Name string }

// WorkloadAssumptions merges, in file order, every Workloads entry that
// matches any of objs in namespace (an autoscaler and its target are one
// workload: an entry naming either applies). Later entries win key by key.
// It also returns the matching entries' lines, in order.
func (c *Config) WorkloadAssumptions(namespace string, objs ...ObjectRef) (Assumptions, []int) {
	var out Assumptions
	var lines []int
	if c == nil {
		return out, nil
	}
	for _, w := range c.Workloads {
		for _, o := range objs {
			if w.Matches(namespace, o.Kind, o.Name) {
				out = out.Overlay(w.Assumptions)
				lines = append(lines, w.Line)
				break
			}
		}
	}
	return out, lines
}

// Cluster holds the kube-controller-manager HPA settings and the
// Kubernetes version charts are rendered for. Values default to v1.34's.
type Cluster struct {
	SyncPeriod              Opt[time.Duration]
	Tolerance               Opt[float64]
	DownscaleStabilization  Opt[time.Duration]
	CPUInitializationPeriod Opt[time.Duration]
	InitialReadinessDelay   Opt[time.Duration]
	// KubeVersion is "major.minor.patch". When set in the file it is also
	// the version Helm charts are rendered for (Capabilities.KubeVersion).
	KubeVersion Opt[string]
	// APIVersions are extra API versions charts see in
	// .Capabilities.APIVersions, on top of capreport's defaults.
	APIVersions []string
}

// Checks selects the checks that run.
type Checks struct {
	// Include, when non-empty, runs only these check IDs.
	Include []string
	// Exclude never runs these check IDs.
	Exclude []string
	// Lines holds the line of each ID of Include and Exclude in the file
	// (of its first entry, if listed twice); nil when none is listed.
	Lines map[string]int
	// AllowIgnores honours ignore-check.capreport.io/<ID> annotations
	// (default true); false makes every check run regardless.
	AllowIgnores Opt[bool]
}

// Enabled reports whether check id runs under Include/Exclude.
func (c Checks) Enabled(id string) bool {
	for _, x := range c.Exclude {
		if x == id {
			return false
		}
	}
	if len(c.Include) == 0 {
		return true
	}
	for _, x := range c.Include {
		if x == id {
			return true
		}
	}
	return false
}

// Default returns the configuration used when a repository has no
// .capreport.yaml: no sources (discovery), no assumptions, v1.34 controller
// defaults, every check, ignores allowed, failing on errors.
func Default() *Config {
	return &Config{
		Cluster: Cluster{
			SyncPeriod:              Opt[time.Duration]{Value: 15 * time.Second},
			Tolerance:               Opt[float64]{Value: 0.1},
			DownscaleStabilization:  Opt[time.Duration]{Value: 300 * time.Second},
			CPUInitializationPeriod: Opt[time.Duration]{Value: 5 * time.Minute},
			InitialReadinessDelay:   Opt[time.Duration]{Value: 30 * time.Second},
			KubeVersion:             Opt[string]{Value: "1.34.0"},
		},
		Checks: Checks{AllowIgnores: Opt[bool]{Value: true}},
		FailOn: FailOnError,
	}
}

// SourceMapping is one repository.sources entry: the GitOps source Name
// names is read from Path, relative to the repository root.
type SourceMapping struct {
	Name, Path string
	Line       int
}

// MeasuredOf is the record of key's value when calibrate measured it, nil
// otherwise (a value written by hand, or a key calibrate does not measure).
func (a Assumptions) MeasuredOf(k Key) *Measurement {
	if m, _ := a.measuredOpt(k); m != nil {
		return *m
	}
	return nil
}

// measuredOpt returns the Measured slot of key's field, and whether the
// entry sets that key.
func (a *Assumptions) measuredOpt(k Key) (**Measurement, bool) {
	switch k {
	case KeyDeadTime:
		return &a.DeadTime.Measured, a.DeadTime.Set
	case KeyPodRate:
		return &a.PodRate.Measured, a.PodRate.Set
	case KeyDemand:
		return &a.Demand.Measured, a.Demand.Set
	case KeyOverload:
		return &a.Overload.Measured, a.Overload.Set
	}
	return nil, false
}
