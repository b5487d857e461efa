package analyze

import (
	"testing"

	"github.com/capreport/capreport/render"
)

func TestMayNeed(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind string
		want             bool
	}{
		{"autoscaling/v2", "HorizontalPodAutoscaler", true},
		{"keda.sh/v1alpha1", "ScaledObject", true},
		{"apps/v1", "Deployment", true},
		{"argoproj.io/v1alpha1", "Rollout", true},
		{"monitoring.coreos.com/v1", "Prometheus", true}, // has a scale subresource
		{"v1", "ConfigMap", true},
		{"example.com/v1", "Service", true}, // another group's Service is not core's
		{"v1", "Service", false},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", false},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", false},
		{"monitoring.coreos.com/v1", "PrometheusRule", false},
	} {
		if got := MayNeed(&render.Object{APIVersion: tc.apiVersion, Kind: tc.kind}); got != tc.want {
			t.Errorf("MayNeed(%s %s) = %v, want %v", tc.apiVersion, tc.kind, got, tc.want)
		}
	}
}
