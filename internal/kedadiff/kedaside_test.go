package kedadiff

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	"github.com/kedacore/keda/v2/pkg/scalers/authentication"
	"github.com/kedacore/keda/v2/pkg/scaling"

	"github.com/capreport/capreport/internal/kedadiff/keda"
)

// outcome is one side's answer for a ScaledObject: the HPA it creates, or
// that it creates none (Refused). Why is printed, never compared: the two
// sides word their reasons differently.
type outcome struct {
	Refused bool                                       `json:"refused"`
	HPAName string                                     `json:"hpaName,omitempty"`
	Spec    *autoscalingv2.HorizontalPodAutoscalerSpec `json:"spec,omitempty"`
	Why     string                                     `json:"-"`
	// Flags are the check IDs of capreport's findings.
	Flags []string `json:"-"`
}

func refused(format string, args ...any) outcome {
	return outcome{Refused: true, Why: fmt.Sprintf(format, args...)}
}

// kedaSide runs KEDA v2.19.0's code against a fake cluster that holds the
// Deployment web and the StatefulSet db (both with requests, and the env
// the gcp-pubsub and azure-servicebus triggers read their credentials
// from), with KEDA's real scale handler building the scalers.
type kedaSide struct {
	client  client.Client
	mapper  meta.RESTMapper
	handler scaling.ScaleHandler
	rec     *keda.ScaledObjectReconciler
}

// webhookOnce guards the admission webhook's package-level clients, which
// SetupWebhookWithManager sets once for the process, as in the operator.
var webhookOnce sync.Once

func newKEDASide() (*kedaSide, error) {
	// KEDA and controller-runtime log through controller-runtime's logger;
	// the test has no use for their logs.
	ctrllog.SetLogger(logr.Discard())
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := kedav1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c := fake.NewClientBuilder().WithScheme(scheme).
		WithStatusSubresource(&kedav1alpha1.ScaledObject{}).
		WithObjects(workloads()...).Build()
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
	mapper.Add(appsv1.SchemeGroupVersion.WithKind("StatefulSet"), meta.RESTScopeNamespace)
	// A recorder without a channel drops events instead of blocking.
	h := scaling.NewScaleHandler(c, nil, scheme, 3*time.Second, &record.FakeRecorder{}, &authentication.AuthClientSet{})
	var err error
	webhookOnce.Do(func() {
		err = (&kedav1alpha1.ScaledObject{}).SetupWebhookWithManager(fakeManager{client: c, mapper: mapper, scheme: scheme}, false)
	})
	if err != nil {
		return nil, fmt.Errorf("setting up KEDA's webhook: %w", err)
	}
	return &kedaSide{client: c, mapper: mapper, handler: h,
		rec: &keda.ScaledObjectReconciler{Client: c, Scheme: scheme, ScaleHandler: h}}, nil
}

// derive is what KEDA does with a ScaledObject, in the operator's order:
// admission (the validating webhook, with its cluster lookups), then
// reconcileScaledObject's checks (scaledobject_controller.go: the pause
// annotations delete the HPA, a missing target name, the target's
// group/version/kind, the replica bounds, the triggers), then hpa.go's
// newHPAForScaledObject. The webhook runs only when it is installed
// (failurePolicy ignore), so what it alone refuses is still a refusal:
// capreport's findings say so too.
func (k *kedaSide) derive(ctx context.Context, in *kedav1alpha1.ScaledObject) (out outcome) {
	// A scaler that panics while it parses (the cpu and memory scalers'
	// resource.MustParse of a value that is not a quantity) fails the
	// reconcile: controller-runtime recovers it, and no HPA is created.
	defer func() {
		if p := recover(); p != nil {
			out = refused("panic: %v", p)
		}
	}()
	// The gcp-pubsub scaler prints its deprecation notice to stdout
	// (typed_config.go); it would bury the test's own output.
	stdout := os.Stdout
	os.Stdout = devNull
	defer func() { os.Stdout = stdout }()
	so := in.DeepCopy()
	dryRun := false
	if _, err := so.DeepCopy().ValidateCreate(&dryRun); err != nil {
		return refused("webhook: %v", err)
	}
	if so.NeedToBePausedByAnnotation() {
		return refused("paused: the HPA is deleted")
	}
	if so.Spec.ScaleTargetRef.Name == "" {
		return refused("reconcile: no scaleTargetRef.name")
	}
	gvkr, err := kedav1alpha1.ParseGVKR(k.mapper, so.Spec.ScaleTargetRef.APIVersion, so.Spec.ScaleTargetRef.Kind)
	if err != nil {
		return refused("reconcile: %v", err)
	}
	if err := kedav1alpha1.CheckReplicaCountBoundsAreValid(so); err != nil {
		return refused("reconcile: %v", err)
	}
	if err := kedav1alpha1.ValidateTriggers(so.Spec.Triggers); err != nil {
		return refused("reconcile: %v", err)
	}
	// checkTargetResourceIsScalable records the target's kind in the
	// status, where the scale handler looks for the pod template.
	so.Status.ScaleTargetGVKR = &gvkr
	if err := k.client.Create(ctx, so); err != nil {
		return refused("fake cluster: %v", err)
	}
	defer func() {
		_ = k.handler.ClearScalersCache(ctx, so)
		_ = k.client.Delete(ctx, so)
	}()
	hpa, err := k.rec.NewHPAForScaledObject(ctx, logr.Discard(), so, &gvkr)
	if err != nil {
		return refused("hpa: %v", err)
	}
	if why := apiServerRejects(&hpa.Spec); why != "" {
		return refused("API server: %s", why)
	}
	return outcome{HPAName: hpa.Name, Spec: &hpa.Spec}
}

// apiServerRejects is the part of the API server's HPA validation
// (k8s.io/kubernetes pkg/apis/autoscaling/validation,
// validateMetricTarget and the spec's replica bounds) that a generated HPA
// can fail: the operator's Create of such an HPA fails, so KEDA creates
// none. Behaviors are drawn within the validation's ranges and are not
// checked here.
func apiServerRejects(spec *autoscalingv2.HorizontalPodAutoscalerSpec) string {
	if spec.MaxReplicas < 1 || spec.MinReplicas == nil || *spec.MinReplicas < 1 || *spec.MinReplicas > spec.MaxReplicas {
		return fmt.Sprintf("replicas %d..%d", ptrOr(spec.MinReplicas), spec.MaxReplicas)
	}
	for i, m := range spec.Metrics {
		var t autoscalingv2.MetricTarget
		resource := false
		switch {
		case m.External != nil:
			t = m.External.Target
		case m.Resource != nil:
			t, resource = m.Resource.Target, true
		case m.ContainerResource != nil:
			t, resource = m.ContainerResource.Target, true
		}
		switch {
		case t.Type == autoscalingv2.UtilizationMetricType && resource:
			if t.AverageUtilization == nil || *t.AverageUtilization <= 0 {
				return fmt.Sprintf("metric %d: averageUtilization must be positive", i)
			}
		case t.Type == autoscalingv2.ValueMetricType && !resource:
			if t.Value == nil || t.Value.Sign() <= 0 {
				return fmt.Sprintf("metric %d: value must be positive", i)
			}
		case t.Type == autoscalingv2.AverageValueMetricType:
			if t.AverageValue == nil || t.AverageValue.Sign() <= 0 {
				return fmt.Sprintf("metric %d: averageValue must be positive", i)
			}
		default:
			return fmt.Sprintf("metric %d: target type %q is not allowed here", i, t.Type)
		}
	}
	return ""
}

// workloads are the fake cluster's targets.
func workloads() []client.Object {
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("250m"),
				corev1.ResourceMemory: resource.MustParse("256Mi"),
			}},
			Env: []corev1.EnvVar{
				{Name: "GOOGLE_APPLICATION_CREDENTIALS_JSON", Value: fakeGCPCredentials},
				{Name: "SERVICEBUS_CONNECTION", Value: "Endpoint=sb://example.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=dGVzdA=="},
			},
		}}},
	}
	return []client.Object{
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: appsv1.DeploymentSpec{Template: pod}},
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"}, Spec: appsv1.StatefulSetSpec{Template: pod}},
	}
}

// fakeGCPCredentials is a service-account key of the shape Google's client
// parses; nothing ever uses it to sign a request.
const fakeGCPCredentials = `{"type":"service_account","project_id":"p","private_key_id":"k","private_key":"","client_email":"a@p.iam.gserviceaccount.com","client_id":"1","token_uri":"http://127.0.0.1:9/token"}`

// fakeManager is the part of a controller-runtime manager KEDA's
// SetupWebhookWithManager reads: the client and REST mapper the webhook
// validates with, and a webhook server that only registers its handler.
type fakeManager struct {
	manager.Manager
	client client.Client
	mapper meta.RESTMapper
	scheme *runtime.Scheme
}

func (m fakeManager) GetClient() client.Client         { return m.client }
func (m fakeManager) GetRESTMapper() meta.RESTMapper   { return m.mapper }
func (m fakeManager) GetScheme() *runtime.Scheme       { return m.scheme }
func (m fakeManager) GetConfig() *rest.Config          { return &rest.Config{} }
func (m fakeManager) GetHTTPClient() *http.Client      { return http.DefaultClient }
func (m fakeManager) GetLogger() logr.Logger           { return logr.Discard() }
func (m fakeManager) GetWebhookServer() webhook.Server { return webhookServer }

var webhookServer = webhook.NewServer(webhook.Options{})

var devNull, _ = os.OpenFile(os.DevNull, os.O_WRONLY, 0)

func ptrOr(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
