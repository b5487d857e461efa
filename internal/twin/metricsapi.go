package twin

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	external "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	metrics "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// The two aggregated APIs the HPA controller reads: resource metrics (what
// metrics-server serves) and external metrics (what KEDA's adapter serves).
const (
	resourceGroup = "metrics.k8s.io"
	externalGroup = "external.metrics.k8s.io"
	version       = "v1beta1"
)

// A MetricsSource answers the controller's metric requests from the
// twin's workloads.
type MetricsSource interface {
	// PodMetrics lists the metrics of the pods in ns that sel selects.
	PodMetrics(ns string, sel labels.Selector) []metrics.PodMetrics
	// ExternalMetric is the named external metric's values in ns.
	ExternalMetric(ns, name string, sel labels.Selector) ([]external.ExternalMetricValue, bool)
}

// MetricsServer serves MetricsSource as the resource and external metrics
// APIs over TLS, for kube-apiserver's aggregator to proxy to (an APIService
// with insecureSkipTLSVerify; the front proxy's client certificate is not
// checked: the server is on the loopback of a test).
type MetricsServer struct {
	*httptest.Server
	requests func(group, ns string) // observes each metrics request, nil for none
}

// NewMetricsServer starts serving src; observe, when set, is told of every
// metrics request as it arrives (the controller's syncs).
func NewMetricsServer(src MetricsSource, observe func(group, ns string)) *MetricsServer {
	s := &MetricsServer{requests: observe}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, src)
	}))
	return s
}

func (s *MetricsServer) serve(w http.ResponseWriter, r *http.Request, src MetricsSource) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 1 || parts[0] != "apis" {
		http.NotFound(w, r)
		return
	}
	switch {
	case len(parts) == 1:
		writeJSON(w, groupList())
	case len(parts) == 3 && parts[2] == version && (parts[1] == resourceGroup || parts[1] == externalGroup):
		writeJSON(w, resourceList(parts[1]))
	case len(parts) == 6 && parts[1] == resourceGroup && parts[3] == "namespaces" && parts[5] == "pods":
		sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.observe(resourceGroup, parts[4])
		writeJSON(w, &metrics.PodMetricsList{
			TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: resourceGroup + "/" + version},
			Items:    src.PodMetrics(parts[4], sel),
		})
	case len(parts) == 6 && parts[1] == externalGroup && parts[3] == "namespaces":
		sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.observe(externalGroup, parts[4])
		items, ok := src.ExternalMetric(parts[4], parts[5], sel)
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, &external.ExternalMetricValueList{
			TypeMeta: metav1.TypeMeta{Kind: "ExternalMetricValueList", APIVersion: externalGroup + "/" + version},
			Items:    items,
		})
	default:
		http.NotFound(w, r)
	}
}

func (s *MetricsServer) observe(group, ns string) {
	if s.requests != nil {
		s.requests(group, ns)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func groupList() *metav1.APIGroupList {
	list := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for _, g := range []string{resourceGroup, externalGroup} {
		gv := metav1.GroupVersionForDiscovery{GroupVersion: g + "/" + version, Version: version}
		list.Groups = append(list.Groups, metav1.APIGroup{Name: g, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv})
	}
	return list
}

func resourceList(group string) *metav1.APIResourceList {
	list := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: group + "/" + version}
	if group == resourceGroup {
		list.APIResources = []metav1.APIResource{
			{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get", "list"}},
			{Name: "nodes", Kind: "NodeMetrics", Verbs: []string{"get", "list"}},
		}
	} else {
		list.APIResources = []metav1.APIResource{
			{Name: "externalmetrics", Namespaced: true, Kind: "ExternalMetricValueList", Verbs: []string{"get"}},
		}
	}
	return list
}

// BacklogServer serves each namespace's backlog at /backlog/<namespace> as
// a queue's HTTP API would ({"backlog": n}), for KEDA's metrics-api scaler
// (valueLocation "backlog"). KEDA compares the number itself with the
// activation threshold, and keeps int64(n·1000) milli-units for the HPA,
// truncating; so the number served is the model's, or when n·1000 falls
// just short of its milli-units in binary, the next float above it
// (servedBacklog).
type BacklogServer struct {
	*httptest.Server
}

// NewBacklogServer serves backlog (milli-units by namespace, false for an
// unknown one); observe, when set, is told of every request as it
// arrives.
func NewBacklogServer(backlog func(ns string) (int64, bool), observe func(group, ns string)) *BacklogServer {
	return &BacklogServer{httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ns, ok := strings.CutPrefix(r.URL.Path, "/backlog/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		milli, ok := backlog(ns)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if observe != nil {
			observe(externalGroup, ns)
		}
		writeJSON(w, map[string]float64{"backlog": servedBacklog(milli)})
	}))}
}

// servedBacklog is the number BacklogServer serves for milli-units: the
// least float64 at or above milli/1000 from which KEDA's int64(n·1000)
// gives milli back.
func servedBacklog(milli int64) float64 {
	v := float64(milli) / 1000
	for int64(v*1000) < milli {
		v = math.Nextafter(v, math.Inf(1))
	}
	return v
}
