// Package keda holds hpa.go, copied byte-identical from KEDA v2.19.0's
// controllers/keda (see UPSTREAM.sha256), and this file, which is not
// KEDA's: it declares the reconciler fields hpa.go reads and exports
// newHPAForScaledObject to the differential test, with no logic of its own.
package keda

import (
	"context"

	"github.com/go-logr/logr"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	"github.com/kedacore/keda/v2/pkg/scaling"
)

// ScaledObjectReconciler holds the three fields of KEDA's reconciler
// (controllers/keda/scaledobject_controller.go) that hpa.go reads.
type ScaledObjectReconciler struct {
	Client       client.Client
	Scheme       *runtime.Scheme
	ScaleHandler scaling.ScaleHandler
}

// NewHPAForScaledObject forwards to hpa.go's unexported newHPAForScaledObject.
func (r *ScaledObjectReconciler) NewHPAForScaledObject(ctx context.Context, logger logr.Logger, so *kedav1alpha1.ScaledObject, gvkr *kedav1alpha1.GroupVersionKindResource) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	return r.newHPAForScaledObject(ctx, logger, so, gvkr)
}
