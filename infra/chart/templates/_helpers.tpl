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

{{/*
The chart's values as CEL literals, for the admission policy on the control plane's Application
writes (shared/rbac/applicationOwnership.ts): rendered in, so that policy reads no parameter that
could go missing. values.schema.json keeps quotes and backslashes out of every value used here.
*/}}
{{- define "aicr.cel.project" -}}
'{{ .Values.argocd.project }}'
{{- end }}
{{- define "aicr.cel.namespaces" -}}
[{{ range $i, $n := .Values.argocd.namespaces }}{{ if not (hasSuffix "*" $n) }}'{{ $n }}', {{ end }}{{ end }}]
{{- end }}
{{- define "aicr.cel.namespacePrefixes" -}}
[{{ range $i, $n := .Values.argocd.namespaces }}{{ if hasSuffix "*" $n }}'{{ trimSuffix "*" $n }}', {{ end }}{{ end }}]
{{- end }}
{{- define "aicr.cel.destinationServer" -}}
'{{ .Values.argocd.destination.server }}'
{{- end }}
{{- define "aicr.cel.destinationName" -}}
'{{ .Values.argocd.destination.name }}'
{{- end }}
