{{/* Chart name. */}}
{{- define "streamgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified name prefix of every resource. */}}
{{- define "streamgate.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of one role's resources: call with (dict "root" $ "role" "sse"). */}}
{{- define "streamgate.roleName" -}}
{{- printf "%s-%s" (include "streamgate.fullname" .root | trunc 55 | trimSuffix "-") .role }}
{{- end }}

{{/* Labels shared by every resource. */}}
{{- define "streamgate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "streamgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one role: call with (dict "root" $ "role" "sse"). */}}
{{- define "streamgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "streamgate.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end }}

{{/* ServiceAccount name. */}}
{{- define "streamgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "streamgate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The roles in a stable order. */}}
{{- define "streamgate.roles" -}}
admin ingest poller sse webhook mercure
{{- end }}

{{/* TLS section of both Ingress objects. */}}
{{- define "streamgate.ingressTls" -}}
{{- if .Values.ingress.tls.enabled }}
tls:
  - hosts:
      - {{ .Values.ingress.host | quote }}
    secretName: {{ required "ingress.tls.secretName is required with TLS" .Values.ingress.tls.secretName }}
{{- end }}
{{- end }}

{{/* ingress-nginx CORS annotations. */}}
{{- define "streamgate.ingressCors" -}}
{{- if .Values.ingress.cors.enabled }}
nginx.ingress.kubernetes.io/enable-cors: "true"
nginx.ingress.kubernetes.io/cors-allow-origin: {{ .Values.ingress.cors.allowOrigin | quote }}
nginx.ingress.kubernetes.io/cors-allow-headers: "Authorization, Content-Type, If-Match, Idempotency-Key, Last-Event-ID"
nginx.ingress.kubernetes.io/cors-expose-headers: "ETag, Location, Retry-After"
{{- end }}
{{- end }}

{{/*
The Secret whose key `secret` signs and verifies tokens: the operator's, or the one the chart
makes when security is on and neither a Secret nor a JWKS is given. Empty when tokens are
verified against a JWKS or security is off.
*/}}
{{- define "streamgate.jwtSecretName" -}}
{{- if .Values.security.jwt.existingSecret }}
{{- .Values.security.jwt.existingSecret }}
{{- else if and .Values.security.enabled (not .Values.security.jwt.jwkSetUri) }}
{{- printf "%s-jwt" (include "streamgate.fullname" . | trunc 59 | trimSuffix "-") }}
{{- end }}
{{- end }}
