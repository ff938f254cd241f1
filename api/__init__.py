"""HTTP plumbing the apps' views share: problem+json rendering and the table
from domain error kinds to status codes, conditional requests, throttles,
pagination, middleware and /healthz. It imports no app: the apps import it."""
