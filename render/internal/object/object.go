// Package object holds what a render makes: the objects with their
// origin, and what happened to each source. render names these types as
// its own (render.Object, render.SourceResult, …); the packages beneath
// render that read or make objects use them from here.
package object

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
)

// SourceType names how a source is rendered.
type SourceType string

const (
	SourceHelm      SourceType = "helm"
	SourceKustomize SourceType = "kustomize"
	SourcePlain     SourceType = "plain"
)

// Origin says where an object came from.
type Origin struct {
	// Source is the chart, overlay or file that rendered the object, as a
	// path relative to the scanned root (slash-separated), plus the value
	// set name for charts rendered more than once (e.g. "charts/api@prod").
	Source string `json:"source"`
	// SourceType is how Source was rendered.
	SourceType SourceType `json:"sourceType"`
	// File is the file the object came from, relative to the scanned root:
	// the template for Helm, the resource file for Kustomize when origin
	// annotations allow, the file itself for plain YAML.
	File string `json:"file"`
	// Line is the 1-based line of the object's document in File, 0 if unknown.
	Line int `json:"line,omitempty"`
	// AnnotationLines is the 1-based line in File of each metadata.annotations
	// key, where known (same coordinates as Line: for Helm, the template's
	// rendered output). A key is absent when its line is unknown, e.g. an
	// annotation added or changed by a Kustomize patch.
	AnnotationLines map[string]int `json:"annotationLines,omitempty"`
	// Via is the root-relative kustomization file or chart directory that
	// brought File into the render, when it is not the source itself (a
	// resource of a base, the chart a GitOps object installs).
	Via string `json:"via,omitempty"`
	// Chain lists the GitOps objects that delivered the object, outermost
	// first; empty when the object was rendered on its own.
	Chain []Link `json:"chain,omitempty"`
	// Partial marks an object of a render that left something out (a
	// remote base, a missing values reference): it may differ in the cluster.
	Partial bool `json:"partial,omitempty"`
}

// Link is one GitOps object of a delivery chain and where it stands: the
// report's type, so that a chain reaches the report as render found it.
type Link = contract.Link

// ChainString is the delivery of an object in one line: each GitOps object,
// then the kustomization or chart that brought the file in, then the file,
// joined by " → ". Empty for an object rendered on its own.
func (o Origin) ChainString() string {
	return contract.Location{File: o.File, Via: o.Via, Chain: o.Chain}.ChainString()
}

// Object is one rendered Kubernetes object.
type Object struct {
	APIVersion string
	Kind       string
	Name       string
	Namespace  string // as rendered; empty when the manifest sets none
	// Doc is the decoded manifest (JSON-compatible types: map[string]any,
	// []any, string, float64/int64, bool, nil).
	Doc    map[string]any
	Origin Origin
}

// Clone copies o with its document and origin, so that the copy can be
// changed (a namespace set, variables substituted, a chain stamped)
// without changing o.
func (o Object) Clone() Object {
	c := o
	c.Doc, _ = CloneValue(o.Doc).(map[string]any)
	c.Origin.AnnotationLines = maps.Clone(o.Origin.AnnotationLines)
	c.Origin.Chain = slices.Clone(o.Origin.Chain)
	return c
}

// CloneValue copies the maps and lists of a decoded document; its
// scalars are values already.
func CloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = CloneValue(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = CloneValue(x)
		}
		return out
	}
	return v
}

// Status of one source after rendering.
type Status string

const (
	StatusRendered Status = "rendered"
	StatusSkipped  Status = "skipped"
	StatusFailed   Status = "failed"
	// StatusDelivered marks a source that a GitOps object renders with its
	// own settings: its objects come from that delivery, not from a render
	// of the source on its own.
	StatusDelivered Status = "delivered"
	// StatusWithheld marks a source beneath a GitOps object whose build
	// failed: Flux and Argo CD apply nothing of a failed build, so what the
	// source holds does not reach the cluster and is not priced.
	StatusWithheld Status = "withheld"
)

// WithheldObject is an autoscaler a failed GitOps build keeps from the
// cluster; By names the failed object ("Kustomization/flux-system/apps").
type WithheldObject struct {
	Object
	By string
}

// SourceResult reports what happened to one source.
type SourceResult struct {
	Path     string          `json:"path"`
	Type     SourceType      `json:"type"`
	ValueSet string          `json:"valueSet,omitempty"`
	Status   Status          `json:"status"`
	Reason   string          `json:"reason,omitempty"`
	Objects  int             `json:"objects"`
	Findings []check.Finding `json:"findings,omitempty"`
	// Partial: the source rendered without something it refers to.
	Partial bool `json:"partial,omitempty"`
	// Chain is the delivery of a source a GitOps object rendered.
	Chain []Link `json:"chain,omitempty"`
	// Repository says, for a delivered source, which repository it was
	// read from and why: this one (the URL's normal forms and the URL of
	// this repository it matched) or a clone --source maps.
	Repository string `json:"repository,omitempty"`
	// Cached: the render came from the render cache (Options.RenderCacheDir).
	Cached bool `json:"cached,omitempty"`
	// Untraced: a Kustomize build made without krusty's origin annotations
	// (its inputs name no autoscaler, KEDA or GitOps kind), so its objects
	// point at their kustomization, not their file; traceTargets builds it
	// again traced when one of them is an autoscaler's target.
	Untraced bool `json:"-"`
}

// FromDoc fills an Object from a decoded document; ok is false when
// the document lacks apiVersion or kind.
func FromDoc(doc map[string]any) (Object, bool) {
	apiVersion, _ := doc["apiVersion"].(string)
	kind, _ := doc["kind"].(string)
	if apiVersion == "" || kind == "" {
		return Object{}, false
	}
	o := Object{APIVersion: apiVersion, Kind: kind, Doc: doc}
	if md, ok := doc["metadata"].(map[string]any); ok {
		o.Name, _ = md["name"].(string)
		o.Namespace, _ = md["namespace"].(string)
	}
	return o, true
}

// clusterScopedKinds are the built-in kinds without a namespace, which
// neither a Helm release namespace nor an Argo CD destination applies to.
var clusterScopedKinds = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"CustomResourceDefinition": true, "StorageClass": true, "PriorityClass": true, "RuntimeClass": true,
	"IngressClass": true, "CSIDriver": true, "CSINode": true, "VolumeAttachment": true, "APIService": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"PodSecurityPolicy": true, "CertificateSigningRequest": true, "FlowSchema": true,
	"PriorityLevelConfiguration": true, "ClusterIssuer": true, "ClusterTriggerAuthentication": true,
	"ClusterPolicy": true, "ComponentStatus": true,
}

// DefaultNamespace is the namespace of a namespaced object that names
// none, as the API server reads it (and Helm's default release namespace).
const DefaultNamespace = "default"

// Group is an apiVersion's group ("" for the core group, "v1").
func Group(apiVersion string) string {
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// IsAutoscaler reports whether o is an autoscaler: an HPA or a KEDA
// ScaledObject.
func IsAutoscaler(o *Object) bool {
	return o.Kind == "HorizontalPodAutoscaler" || (o.Kind == "ScaledObject" && strings.HasPrefix(o.APIVersion, "keda.sh/"))
}

// ClusterScoped reports whether kind is one of clusterScopedKinds.
func ClusterScoped(kind string) bool { return clusterScopedKinds[kind] }

// SetDefaultNamespace gives a namespaced object without a namespace the
// one it lands in (the release namespace for Helm, the destination for
// Argo CD), in the object and its manifest alike.
func SetDefaultNamespace(o *Object, ns string) {
	if ns == "" || o.Namespace != "" || ClusterScoped(o.Kind) {
		return
	}
	o.Namespace = ns
	OwnMetadata(o)["namespace"] = ns
}

// OwnMetadata gives o a document and metadata of its own to write into,
// copies of its own (a cached render's documents are shared by the builds
// that load it, sharedBody), and returns the metadata.
func OwnMetadata(o *Object) map[string]any {
	o.Doc = maps.Clone(o.Doc)
	if o.Doc == nil {
		o.Doc = map[string]any{}
	}
	md, _ := o.Doc["metadata"].(map[string]any)
	md = maps.Clone(md)
	if md == nil {
		md = map[string]any{}
	}
	o.Doc["metadata"] = md
	return md
}

// MergeMetadata sets labels and annotations on o over its own (Flux's
// commonMetadata). The maps it writes into are copies: a cached render's
// documents are shared by the builds that load it.
func MergeMetadata(o *Object, labels, annotations map[string]any) {
	if _, ok := o.Doc["metadata"].(map[string]any); ok && len(labels) == 0 && len(annotations) == 0 {
		return
	}
	md := OwnMetadata(o)
	for field, add := range map[string]map[string]any{"labels": labels, "annotations": annotations} {
		if len(add) == 0 {
			continue
		}
		cur, _ := md[field].(map[string]any)
		cur = maps.Clone(cur)
		if cur == nil {
			cur = map[string]any{}
		}
		md[field] = cur
		for k, v := range add {
			cur[k] = v
		}
	}
}

// Ref names a GitOps object in messages and source IDs: Kind/ns/name.
func Ref(o *Object) string {
	if o.Namespace == "" {
		return o.Kind + "/" + o.Name
	}
	return o.Kind + "/" + o.Namespace + "/" + o.Name
}

// NSName is ns/name, or name alone without a namespace.
func NSName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// Finding is a finding about a GitOps object, at its place.
func Finding(o *Object, id, severity, msg string) check.Finding {
	return check.Finding{Check: id, Severity: severity, Location: check.At(o.Origin.File, o.Origin.Line), Source: o.Origin.Source,
		Message: fmt.Sprintf("%s:%d: %s %s: %s", o.Origin.File, o.Origin.Line, o.Kind, NSName(o.Namespace, o.Name), msg),
		About:   &check.Subject{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Detail: msg}}
}

// LinkRef is the Ref of the object a chain link names.
func LinkRef(l Link) string {
	return Ref(&Object{Kind: l.Kind, Namespace: l.Namespace, Name: l.Name})
}

// NotFollowed is the finding for a GitOps object capreport cannot follow
// offline; the summary counts them.
func NotFollowed(o *Object, why string) check.Finding {
	f := Finding(o, check.GitOpsNotFollowed, check.SeverityWarning, "not followed: "+why)
	f.About.Detail = why
	return f
}

// DuplicateKeyFinding reports a document of file rel, at line, with the
// mapping keys keys defined twice (lines relative to the document's own
// start).
func DuplicateKeyFinding(rel string, line int, keys []string) check.Finding {
	return check.Finding{Check: check.YAMLDuplicateKey, Severity: check.SeverityWarning, Location: check.At(rel, line),
		Message: fmt.Sprintf("%s:%d: a mapping key is defined twice: %s; the later value is used, as Helm and kustomize take it, but kubectl's strict decoding refuses the document",
			rel, line, strings.Join(keys, ", "))}
}
