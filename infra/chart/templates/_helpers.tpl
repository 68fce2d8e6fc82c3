{{/* Labels every object this chart writes by hand carries (generated RBAC and CRDs excepted). */}}
{{- define "aicr.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/part-of: aicr-control-plane
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/*
The generated RBAC and the control plane itself name aicr-system, so the release must live
there; anywhere else would scatter the control plane's objects over two namespaces.
*/}}
{{- define "aicr.requireSystemNamespace" -}}
{{- if ne .Release.Namespace "aicr-system" -}}
{{- fail (printf "install this chart into the namespace aicr-system (helm -n aicr-system), not %q" .Release.Namespace) -}}
{{- end -}}
{{- end }}
