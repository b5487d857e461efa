package render

import (
	"encoding/gob"
	"sync"
)

// The messages between Render and its render workers (see isolate.go),
// encoded with gob: decoded YAML holds Go ints, floats and nils that a JSON
// round trip would turn into float64s and lose.

// workerInit is the first message a worker reads: the renderer it builds.
type workerInit struct {
	Root, Scope string
	Opts        Options
	MaxMemory   int64
}

// workerRequest asks for one source's render.
type workerRequest struct {
	ID   uint64
	Spec wireSpec
	// FetchBudget is what the run may still download (Options.Fetch).
	FetchBudget int64
}

// workerResponse is one source's render, as renderSource returned it.
type workerResponse struct {
	ID      uint64
	Objects []Object
	Result  SourceResult
	Covered []string
	// Inputs are the render's reads, when Recorded (a run with a cache).
	Inputs   []Input
	Recorded bool
	// Fetched is what the render downloaded, charged to the run's budget.
	Fetched int64
}

// wireSpec is a SourceSpec with its unexported parts spelled out.
type wireSpec struct {
	Path     string
	Type     SourceType
	Name     string
	Helm     HelmValues
	Explicit bool
	Delivery *wireDelivery
	Traced   bool `json:",omitempty"`
}

type wireDelivery struct {
	KustDoc       map[string]any
	HelmOverFiles map[string]any
	HelmSetString []string
	Namespace     string
	Dir           *dirOptionsWire
	Remote        *remoteChart
}

type dirOptionsWire struct {
	Recurse          bool
	Include, Exclude string
}

func toWire(s SourceSpec) wireSpec {
	w := wireSpec{Path: s.Path, Type: s.Type, Name: s.Name, Helm: s.Helm, Explicit: s.explicit, Traced: s.traced}
	if d := s.delivery; d != nil {
		w.Delivery = &wireDelivery{KustDoc: d.kustDoc, HelmOverFiles: d.helmOverFiles,
			HelmSetString: d.helmSetString, Namespace: d.namespace, Remote: d.remote}
		if d.dir != nil {
			w.Delivery.Dir = &dirOptionsWire{Recurse: d.dir.recurse, Include: d.dir.include, Exclude: d.dir.exclude}
		}
	}
	return w
}

func (w wireSpec) spec() SourceSpec {
	s := SourceSpec{Path: w.Path, Type: w.Type, Name: w.Name, Helm: w.Helm, explicit: w.Explicit, traced: w.Traced}
	if d := w.Delivery; d != nil {
		s.delivery = &deliverySpec{kustDoc: d.KustDoc, helmOverFiles: d.HelmOverFiles,
			helmSetString: d.HelmSetString, namespace: d.Namespace, remote: d.Remote}
		if d.Dir != nil {
			s.delivery.dir = &dirOptions{recurse: d.Dir.Recurse, include: d.Dir.Include, exclude: d.Dir.Exclude}
		}
	}
	return s
}

var registerWire sync.Once

// registerWireTypes names the dynamic types decoded documents hold, so gob
// can carry them inside map[string]any. A value of any other type makes
// the encode fail, and the source renders in-process instead.
func registerWireTypes() {
	registerWire.Do(func() {
		for _, v := range []any{
			map[string]any{}, []any{}, map[string]string{}, []string{}, []map[string]any{}, wireEmptyList{},
			"", false, int(0), int8(0), int16(0), int32(0), int64(0),
			uint(0), uint8(0), uint16(0), uint32(0), uint64(0), float32(0), float64(0),
		} {
			gob.Register(v)
		}
	})
}

// wireEmptyList stands for an empty list inside a decoded document: gob
// turns an empty []any into a nil one, and `supplementalGroups: []` would
// come back as null.
type wireEmptyList struct{ Empty bool }

// markEmptyLists replaces each empty list in v with wireEmptyList, in
// place, before v is sent; unmarkEmptyLists undoes it after.
func markEmptyLists(v any) any { return mapLists(v, true) }

func unmarkEmptyLists(v any) any { return mapLists(v, false) }

func mapLists(v any, mark bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = mapLists(e, mark)
		}
	case []any:
		if mark && len(x) == 0 && x != nil {
			return wireEmptyList{Empty: true}
		}
		for i, e := range x {
			x[i] = mapLists(e, mark)
		}
	case wireEmptyList:
		if !mark {
			return []any{}
		}
	}
	return v
}
