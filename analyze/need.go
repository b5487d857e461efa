package analyze

import (
	"strings"

	"github.com/capreport/capreport/render"
)

// neverNeeded are the kinds, by API group, that Extract never reads: none
// is an autoscaler or can be the target of one (none has a scale
// subresource). They are most of a large repository's bytes (a
// CustomResourceDefinition alone can be megabytes), so a run drops them
// as each source finishes (render.Options.Keep = MayNeed).
var neverNeeded = map[string]map[string]bool{
	"":                             {"Service": true, "ServiceAccount": true, "Endpoints": true, "PersistentVolume": true, "PersistentVolumeClaim": true, "LimitRange": true, "ResourceQuota": true},
	"apiextensions.k8s.io":         {"CustomResourceDefinition": true},
	"rbac.authorization.k8s.io":    {"Role": true, "ClusterRole": true, "RoleBinding": true, "ClusterRoleBinding": true},
	"networking.k8s.io":            {"Ingress": true, "IngressClass": true, "NetworkPolicy": true},
	"admissionregistration.k8s.io": {"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true, "ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true},
	"policy":                       {"PodDisruptionBudget": true},
	"scheduling.k8s.io":            {"PriorityClass": true},
	"storage.k8s.io":               {"StorageClass": true, "CSIDriver": true},
	"apiregistration.k8s.io":       {"APIService": true},
	"discovery.k8s.io":             {"EndpointSlice": true},
	"monitoring.coreos.com":        {"ServiceMonitor": true, "PodMonitor": true, "PrometheusRule": true},
	"cert-manager.io":              {"Certificate": true, "Issuer": true, "ClusterIssuer": true},
}

// MayNeed reports whether Extract may read o: everything but the kinds
// that are never an autoscaler or a scale target.
func MayNeed(o *render.Object) bool {
	group := "" // the core group: "v1"
	if i := strings.Index(o.APIVersion, "/"); i >= 0 {
		group = o.APIVersion[:i]
	}
	return !neverNeeded[group][o.Kind]
}
