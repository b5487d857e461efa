package render

import (
	"github.com/capreport/capreport/render/cache"
	"github.com/capreport/capreport/render/internal/wiredoc"
)

// The messages between Render and its render workers (render/worker),
// encoded with gob: decoded YAML holds Go ints, floats and nils that a JSON
// round trip would turn into float64s and lose. Documents travel as
// wireDocs, in wiredoc's form: gob would turn their empty lists into nil
// ones, and decodes their scalars several times slower.

// workerSetup is what a worker renders with: the renderer it builds.
type workerSetup struct {
	Root, Scope string
	Opts        Options
}

// workerRequest asks for one source's render.
type workerRequest struct {
	Spec wireSpec
	// FetchBudget is what the run may still download (Options.Fetch).
	FetchBudget int64
	// Warm asks the worker to parse kustomize's schema once this render is
	// done, while it waits for the next (renderer.warm).
	Warm bool
}

// workerResponse is one source's render, as renderSource returned it.
type workerResponse struct {
	Objects []wireObject
	Result  SourceResult
	Covered []string
	// Inputs are the render's reads, when Recorded (a run with a cache).
	Inputs   []cache.Input
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
	KustDoc       wireDoc
	HelmOverFiles wireDoc
	HelmSetString []string
	Namespace     string
	Dir           *dirOptionsWire
	Remote        *remoteChart
	LoadAnywhere  bool `json:",omitempty"`
}

type dirOptionsWire struct {
	Recurse          bool
	Include, Exclude string
}

func toWire(s SourceSpec) wireSpec {
	w := wireSpec{Path: s.Path, Type: s.Type, Name: s.Name, Helm: s.Helm, Explicit: s.Explicit, Traced: s.Traced}
	if d := s.Delivery; d != nil {
		w.Delivery = &wireDelivery{KustDoc: d.KustDoc, HelmOverFiles: d.HelmOverFiles,
			HelmSetString: d.HelmSetString, Namespace: d.Namespace, Remote: d.Remote, LoadAnywhere: d.LoadAnywhere}
		if d.Dir != nil {
			w.Delivery.Dir = &dirOptionsWire{Recurse: d.Dir.Recurse, Include: d.Dir.Include, Exclude: d.Dir.Exclude}
		}
	}
	return w
}

func (w wireSpec) spec() SourceSpec {
	s := SourceSpec{Path: w.Path, Type: w.Type, Name: w.Name, Helm: w.Helm, Explicit: w.Explicit, Traced: w.Traced}
	if d := w.Delivery; d != nil {
		s.Delivery = &deliverySpec{KustDoc: d.KustDoc, HelmOverFiles: d.HelmOverFiles,
			HelmSetString: d.HelmSetString, Namespace: d.Namespace, Remote: d.Remote, LoadAnywhere: d.LoadAnywhere}
		if d.Dir != nil {
			s.Delivery.Dir = &dirOptions{Recurse: d.Dir.Recurse, Include: d.Dir.Include, Exclude: d.Dir.Exclude}
		}
	}
	return s
}

// wireObject is an Object as a worker's reply and a cache entry hold it.
type wireObject struct {
	APIVersion, Kind, Name, Namespace string
	Doc                               wireDoc
	Origin                            Origin
}

func toWireObjects(objs []Object) []wireObject {
	w := make([]wireObject, len(objs))
	for i, o := range objs {
		w[i] = wireObject{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, Namespace: o.Namespace, Doc: o.Doc, Origin: o.Origin}
	}
	return w
}

func fromWireObjects(w []wireObject) []Object {
	objs := make([]Object, len(w))
	for i, o := range w {
		objs[i] = Object{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, Namespace: o.Namespace, Doc: o.Doc, Origin: o.Origin}
	}
	return objs
}

// wireDoc is a decoded document that gob carries in wiredoc's form.
type wireDoc map[string]any

func (d wireDoc) GobEncode() ([]byte, error) { return wiredoc.Append(nil, map[string]any(d)) }

func (d *wireDoc) GobDecode(b []byte) error {
	v, err := wiredoc.Decode(b)
	m, ok := v.(map[string]any)
	if err == nil && !ok {
		err = wiredoc.ErrCorrupt
	}
	*d = m
	return err
}
