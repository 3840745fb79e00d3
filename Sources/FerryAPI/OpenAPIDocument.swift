import FerryModel

/// The OpenAPI 3.1 document of every route `APIRouter` serves, as `GET /openapi.json` sends it, and what
/// `RequestFields` checks request bodies against (a field it does not name is refused).
///
/// Held as text in the binary so ferryd serves it from any working directory. Keep it in step with the
/// routes: the end-to-end tests check every reply they get against it, and that every route in the
/// router appears in it.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Ferry transfer gateway",
    "version": "1",
    "description": "ferryd: tenants submit download, upload and data jobs that the gateway's workers run; the admin manages tenants and their API keys. Every error is an RFC 9457 problem details document (application/problem+json) with a stable `code`. Ids are lower-case UUIDs; timestamps are RFC 3339 (ISO 8601) strings in UTC with fractional seconds. Optional fields are left out when they have no value, never null. A path the API has, asked with a method it does not take, answers 405 `method_not_allowed` with `Allow`."
  },
  "servers": [
    {
      "url": "/"
    }
  ],
  "security": [
    {
      "bearer": []
    }
  ],
  "tags": [
    {
      "name": "health",
      "description": "Liveness and readiness, without authentication."
    },
    {
      "name": "jobs",
      "description": "A tenant's own jobs (tenant API key)."
    },
    {
      "name": "blobs",
      "description": "Bodies for later upload jobs (tenant API key)."
    },
    {
      "name": "admin",
      "description": "Tenants, their keys, and every tenant's jobs (admin API key)."
    },
    {
      "name": "sessions",
      "description": "A tenant's sessions, the configurations jobs run in (tenant API key)."
    },
    {
      "name": "metrics",
      "description": "Prometheus metrics, without authentication."
    },
    {
      "name": "events",
      "description": "A tenant's job events as Server-Sent Events (tenant API key)."
    },
    {
      "name": "webhooks",
      "description": "Signed webhooks (Standard Webhooks): the tenant's secret, endpoints and the delivery log (tenant API key)."
    },
    {
      "name": "credentials",
      "description": "A tenant's credential vault: secrets for authentication challenges, encrypted at rest and never returned (tenant API key)."
    },
    {
      "name": "console",
      "description": "The operator console in the browser."
    }
  ],
  "paths": {
    "/healthz": {
      "get": {
        "operationId": "health",
        "tags": [
          "health"
        ],
        "summary": "The process answers",
        "security": [],
        "responses": {
          "200": {
            "description": "Alive.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/HealthStatus"
                }
              }
            }
          }
        }
      }
    },
    "/readyz": {
      "get": {
        "operationId": "ready",
        "tags": [
          "health"
        ],
        "summary": "The process and its database answer",
        "security": [],
        "responses": {
          "200": {
            "description": "Ready: the database answered within 2 seconds.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ReadyStatus"
                }
              }
            }
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openAPI",
        "tags": [
          "health"
        ],
        "summary": "This document",
        "security": [],
        "responses": {
          "200": {
            "description": "The OpenAPI 3.1 document describing every route.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "openapi",
                    "info",
                    "paths"
                  ]
                }
              }
            }
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "tags": [
          "metrics"
        ],
        "summary": "Prometheus metrics",
        "description": "The gateway's metrics, recorded through swift-metrics: jobs by state and the oldest runnable job's wait (from the database: every ferryd), and this process's running transfers, jobs started and finished (by outcome and error code), attempts and their duration, bytes received and sent per tenant, webhook deliveries by outcome, database pool waits and API requests by route template. The README's metrics section lists every metric with its type and labels.",
        "security": [],
        "responses": {
          "200": {
            "description": "The Prometheus text exposition format, version 0.0.4.",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          }
        }
      }
    },
    "/v1/jobs": {
      "post": {
        "operationId": "submitJob",
        "tags": [
          "jobs"
        ],
        "summary": "Submit a job",
        "description": "Validates the whole body and answers 400 listing every bad field. With an `Idempotency-Key`, the same key and the same body return the job made the first time (200, `Idempotent-Replayed: true`); the same key with another body is a 409. With `Prefer: wait=N` the answer waits up to N seconds (at most 60) for the job to end: a job that ended is answered 200 with `Preference-Applied: wait=N` and, when it succeeded, its `content` (a data job's body of at most 64 KiB inline in base64); a job still going after N seconds is answered as usual.",
        "parameters": [
          {
            "$ref": "#/components/parameters/IdempotencyKey"
          },
          {
            "$ref": "#/components/parameters/PreferWait"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/JobSubmission"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The job, queued.",
            "headers": {
              "Location": {
                "required": true,
                "description": "`/v1/jobs/{id}` of the new job.",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantJob"
                }
              }
            }
          },
          "200": {
            "description": "The job has ended while the request waited (`Prefer: wait`, with `Preference-Applied`), or the same `Idempotency-Key` and body as an earlier submission name the job it made (`Idempotent-Replayed: true`); both may apply.",
            "headers": {
              "Idempotent-Replayed": {
                "required": false,
                "schema": {
                  "type": "string",
                  "enum": [
                    "true"
                  ]
                }
              },
              "Preference-Applied": {
                "required": false,
                "description": "`wait=N`: the request waited for the job, which ended.",
                "schema": {
                  "type": "string",
                  "pattern": "^wait=[0-9]+$"
                }
              },
              "Location": {
                "required": false,
                "description": "`/v1/jobs/{id}` of the new job (not on a replay).",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantJob"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "description": "The body's blob (`blob_not_found`), job (`job_not_found`) or session (`session_not_found`) is not this tenant's or does not exist.",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "`idempotency_key_reused` (another body with this key), `idempotency_key_in_use` (a concurrent request holds the key; retry), `session_invalidated`, or `job_content_unavailable` (the body's job has not succeeded).",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "$ref": "#/components/responses/ContentTooLarge"
          },
          "429": {
            "description": "The tenant's queue is full (`queue_full`).",
            "headers": {
              "Retry-After": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "get": {
        "operationId": "listJobs",
        "tags": [
          "jobs"
        ],
        "summary": "The tenant's jobs, newest first, a page at a time",
        "parameters": [
          {
            "$ref": "#/components/parameters/State"
          },
          {
            "$ref": "#/components/parameters/URLContains"
          },
          {
            "$ref": "#/components/parameters/Limit"
          },
          {
            "$ref": "#/components/parameters/Cursor"
          }
        ],
        "responses": {
          "200": {
            "description": "A page of jobs.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantJobPage"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/jobs/batch": {
      "post": {
        "operationId": "submitJobBatch",
        "tags": [
          "jobs"
        ],
        "summary": "Submit up to 1,000 jobs at once",
        "description": "Each job is written as for `POST /v1/jobs`. The batch is accepted or refused as a whole, in one transaction: a 400 lists every bad field as `jobs.<index>.<field>` (the first 100), and nothing is stored unless every job is. The jobs run and are listed in the order given. With an `Idempotency-Key`, the same key and the same body return the jobs made the first time (200, `Idempotent-Replayed: true`; jobs deleted since are left out); the same key with another body is a 409. A batch's key never collides with a single job's.",
        "parameters": [
          {
            "$ref": "#/components/parameters/IdempotencyKey"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/JobBatchSubmission"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The jobs, queued, in the order given.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantJobBatch"
                }
              }
            }
          },
          "200": {
            "description": "The same `Idempotency-Key` and body as an earlier batch: the jobs it made that still exist.",
            "headers": {
              "Idempotent-Replayed": {
                "required": true,
                "schema": {
                  "type": "string",
                  "enum": [
                    "true"
                  ]
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantJobBatch"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "description": "A job's body blob (`blob_not_found`), body job (`job_not_found`) or session (`session_not_found`) is not this tenant's or does not exist. No job of the batch is stored.",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "`idempotency_key_reused` (another body with this key), `idempotency_key_in_use` (a concurrent request holds the key; retry), `session_invalidated`, or `job_content_unavailable` (a body's job has not succeeded). No job of the batch is stored.",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "$ref": "#/components/responses/ContentTooLarge"
          },
          "429": {
            "description": "The tenant's queue has no room for the whole batch (`queue_full`). No job of the batch is stored.",
            "headers": {
              "Retry-After": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/jobs/{id}": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "get": {
        "operationId": "getJob",
        "tags": [
          "jobs"
        ],
        "summary": "One of the tenant's jobs",
        "responses": {
          "200": {
            "description": "The job.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantJob"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "delete": {
        "operationId": "deleteJob",
        "tags": [
          "jobs"
        ],
        "summary": "Delete a finished job and its content",
        "responses": {
          "204": {
            "description": "Deleted, with its content file."
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "description": "The job has not finished (`job_not_finished`); cancel it first.",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/jobs/{id}/content": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "get": {
        "operationId": "getJobContent",
        "tags": [
          "jobs"
        ],
        "summary": "A succeeded job's content, whole or one byte range",
        "parameters": [
          {
            "$ref": "#/components/parameters/Range"
          },
          {
            "$ref": "#/components/parameters/IfRange"
          }
        ],
        "responses": {
          "200": {
            "description": "The whole content, with the type the origin gave it (else application/octet-stream).",
            "headers": {
              "Accept-Ranges": {
                "required": true,
                "schema": {
                  "type": "string",
                  "enum": [
                    "bytes"
                  ]
                }
              },
              "ETag": {
                "required": true,
                "description": "The content's SHA-256 in quotes.",
                "schema": {
                  "type": "string"
                }
              },
              "Content-Length": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "*/*": {
                "schema": {
                  "type": "string",
                  "contentMediaType": "application/octet-stream"
                }
              }
            }
          },
          "206": {
            "description": "The requested range (a single range; several ranges get the whole content).",
            "headers": {
              "Accept-Ranges": {
                "required": true,
                "schema": {
                  "type": "string",
                  "enum": [
                    "bytes"
                  ]
                }
              },
              "ETag": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              },
              "Content-Range": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              },
              "Content-Length": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "*/*": {
                "schema": {
                  "type": "string",
                  "contentMediaType": "application/octet-stream"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "description": "The job has not succeeded, so it has no content (`job_content_unavailable`).",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "410": {
            "description": "The content passed its retention and was removed (`content_expired`; the job's `result.content_expired` is true), or its file is gone (`content_missing`).",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "416": {
            "description": "The range lies outside the content (`range_not_satisfiable`).",
            "headers": {
              "Content-Range": {
                "required": true,
                "description": "`bytes */{size}`",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "head": {
        "operationId": "headJobContent",
        "tags": [
          "jobs"
        ],
        "summary": "A succeeded job's content headers (size, ETag, type) without the body",
        "parameters": [
          {
            "$ref": "#/components/parameters/Range"
          },
          {
            "$ref": "#/components/parameters/IfRange"
          }
        ],
        "responses": {
          "200": {
            "description": "The whole content, with the type the origin gave it (else application/octet-stream).",
            "headers": {
              "Accept-Ranges": {
                "required": true,
                "schema": {
                  "type": "string",
                  "enum": [
                    "bytes"
                  ]
                }
              },
              "ETag": {
                "required": true,
                "description": "The content's SHA-256 in quotes.",
                "schema": {
                  "type": "string"
                }
              },
              "Content-Length": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "206": {
            "description": "The requested range (a single range; several ranges get the whole content).",
            "headers": {
              "Accept-Ranges": {
                "required": true,
                "schema": {
                  "type": "string",
                  "enum": [
                    "bytes"
                  ]
                }
              },
              "ETag": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              },
              "Content-Range": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              },
              "Content-Length": {
                "required": true,
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "description": "The job has not succeeded, so it has no content (`job_content_unavailable`).",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "410": {
            "description": "The content passed its retention and was removed (`content_expired`; the job's `result.content_expired` is true), or its file is gone (`content_missing`).",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "416": {
            "description": "The range lies outside the content (`range_not_satisfiable`).",
            "headers": {
              "Content-Range": {
                "required": true,
                "description": "`bytes */{size}`",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/jobs/{id}/cancel": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "post": {
        "operationId": "cancelJob",
        "tags": [
          "jobs"
        ],
        "summary": "Cancel a job",
        "responses": {
          "200": {
            "$ref": "#/components/responses/TenantJobChanged"
          },
          "202": {
            "$ref": "#/components/responses/TenantJobStopRequested"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/IllegalTransition"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/jobs/{id}/pause": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "post": {
        "operationId": "pauseJob",
        "tags": [
          "jobs"
        ],
        "summary": "Pause a job, keeping what it has transferred",
        "responses": {
          "200": {
            "$ref": "#/components/responses/TenantJobChanged"
          },
          "202": {
            "$ref": "#/components/responses/TenantJobStopRequested"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/IllegalTransition"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/jobs/{id}/resume": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "post": {
        "operationId": "resumeJob",
        "tags": [
          "jobs"
        ],
        "summary": "Queue a paused job again",
        "responses": {
          "200": {
            "$ref": "#/components/responses/TenantJobChanged"
          },
          "202": {
            "$ref": "#/components/responses/TenantJobStopRequested"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/IllegalTransition"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/blobs": {
      "put": {
        "operationId": "putBlob",
        "tags": [
          "blobs"
        ],
        "summary": "Store a body for later upload jobs",
        "description": "The body is streamed to disk and hashed on the way; its Content-Type is kept. It counts against the tenant's storage quota with its succeeded jobs' content: a declared length that does not fit is refused before a byte is written, and a body that grows past the room left is cut off and removed.",
        "requestBody": {
          "required": true,
          "content": {
            "*/*": {
              "schema": {
                "type": "string",
                "contentMediaType": "application/octet-stream"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The stored blob.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Blob"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "413": {
            "$ref": "#/components/responses/ContentTooLarge"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "507": {
            "description": "The blob does not fit in the tenant's storage quota (`storage_quota_exceeded`; nothing is kept), the disk is full (`insufficient_storage`), or it cannot be written (`cannot_write_file`).",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "get": {
        "operationId": "listBlobs",
        "tags": [
          "blobs"
        ],
        "summary": "The tenant's blobs, newest first",
        "parameters": [
          {
            "$ref": "#/components/parameters/Limit"
          },
          {
            "$ref": "#/components/parameters/Cursor"
          }
        ],
        "responses": {
          "200": {
            "description": "A page of blobs.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/BlobPage"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/sessions": {
      "post": {
        "operationId": "createSession",
        "tags": [
          "sessions"
        ],
        "summary": "Create a session",
        "description": "Jobs that name the session (`\"session\": id`) run with its configuration: its headers unless the job sets the same field, its idle timeout unless the job has one, its per-host connection limit, TLS bounds and proxy.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewSession"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The session.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Session"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "413": {
            "$ref": "#/components/responses/ContentTooLarge"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "get": {
        "operationId": "listSessions",
        "tags": [
          "sessions"
        ],
        "summary": "The tenant's sessions, newest first (at most 1,000)",
        "responses": {
          "200": {
            "description": "The sessions.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/SessionList"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/sessions/{id}": {
      "parameters": [
        {
          "$ref": "#/components/parameters/SessionID"
        }
      ],
      "get": {
        "operationId": "getSession",
        "tags": [
          "sessions"
        ],
        "summary": "One session",
        "responses": {
          "200": {
            "description": "The session.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Session"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "delete": {
        "operationId": "invalidateSession",
        "tags": [
          "sessions"
        ],
        "summary": "Invalidate a session",
        "description": "Either way the session takes no new jobs. `finish` lets its jobs run to the end; `cancel` cancels its waiting jobs at once and its running ones through their workers. Invalidating again is harmless.",
        "parameters": [
          {
            "name": "mode",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "enum": [
                "finish",
                "cancel"
              ],
              "default": "finish"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The invalidated session.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Session"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/credentials": {
      "post": {
        "operationId": "createCredential",
        "tags": [
          "credentials"
        ],
        "summary": "Store a credential",
        "description": "Jobs whose server challenges the protection space (401) answer with it, without a credential of their own: the tenant's permanent credentials serve every job of the tenant, a session's only that session's jobs. The session's own come before the tenant's, one naming the realm before one for any realm, then the newest. A credential the server refuses is tried once per job; the job then fails with `authentication_failed`. Connection credentials apply to their host and port only, for the owner's jobs only, from the next job after they are stored: a server_trust credential's `ca_certificate` is trusted both as the server's own certificate (a self-signed server; host names are not checked) and as a CA the server's chain may end at (a private CA; the chain is verified and the host name checked), in addition to the system's CAs; its `pins` then require the server's public key to be one of them (a mismatch fails the job with `server_certificate_untrusted`, saying the public key matches none of the pins); a client_certificate identity is presented when that server asks for a client certificate.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewCredential"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The credential, without its secret.",
            "headers": {
              "Location": {
                "required": true,
                "description": "`/v1/credentials/{id}` of the new credential.",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Credential"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "description": "The session (`session_not_found`) is not this tenant's or does not exist.",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "The session is invalidated (`session_invalidated`).",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "$ref": "#/components/responses/ContentTooLarge"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "get": {
        "operationId": "listCredentials",
        "tags": [
          "credentials"
        ],
        "summary": "The tenant's credentials, newest first, without secrets",
        "parameters": [
          {
            "$ref": "#/components/parameters/Limit"
          },
          {
            "$ref": "#/components/parameters/Cursor"
          }
        ],
        "responses": {
          "200": {
            "description": "A page of credentials.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CredentialPage"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/credentials/{id}": {
      "parameters": [
        {
          "$ref": "#/components/parameters/CredentialID"
        }
      ],
      "get": {
        "operationId": "getCredential",
        "tags": [
          "credentials"
        ],
        "summary": "One credential, without its secret",
        "responses": {
          "200": {
            "description": "The credential.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Credential"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "delete": {
        "operationId": "deleteCredential",
        "tags": [
          "credentials"
        ],
        "summary": "Delete a credential",
        "description": "Jobs stop using it at their next challenge, in every ferryd.",
        "responses": {
          "204": {
            "description": "Deleted."
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/tenants": {
      "post": {
        "operationId": "createTenant",
        "tags": [
          "admin"
        ],
        "summary": "Create a tenant and its first API key",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewTenant"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The tenant, with its first API key (shown only here).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CreatedTenant"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "413": {
            "$ref": "#/components/responses/ContentTooLarge"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "get": {
        "operationId": "listTenants",
        "tags": [
          "admin"
        ],
        "summary": "Every tenant",
        "responses": {
          "200": {
            "description": "Every tenant, oldest first, without keys.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantList"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/tenants/{tenant}/keys": {
      "parameters": [
        {
          "$ref": "#/components/parameters/TenantID"
        }
      ],
      "post": {
        "operationId": "createKey",
        "tags": [
          "admin"
        ],
        "summary": "Another API key for a tenant",
        "description": "The body is optional; when given it must be a JSON object (`label`, at most 200 characters).",
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewKey"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The key, with its secret (shown only here).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CreatedKey"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "413": {
            "$ref": "#/components/responses/ContentTooLarge"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "get": {
        "operationId": "listKeys",
        "tags": [
          "admin"
        ],
        "summary": "A tenant's API keys, without their secrets",
        "description": "A tenant id that is not a UUID, or the UUID of no tenant, is a 404.",
        "responses": {
          "200": {
            "description": "The keys, oldest first.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/KeyList"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/tenants/{tenant}/keys/{key}": {
      "parameters": [
        {
          "$ref": "#/components/parameters/TenantID"
        },
        {
          "$ref": "#/components/parameters/KeyID"
        }
      ],
      "delete": {
        "operationId": "revokeKey",
        "tags": [
          "admin"
        ],
        "summary": "Revoke a tenant's API key",
        "responses": {
          "204": {
            "description": "Revoked (revoking a revoked key changes nothing)."
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/jobs": {
      "get": {
        "operationId": "adminListJobs",
        "tags": [
          "admin"
        ],
        "summary": "Every tenant's jobs, newest first, a page at a time",
        "parameters": [
          {
            "$ref": "#/components/parameters/State"
          },
          {
            "$ref": "#/components/parameters/URLContains"
          },
          {
            "$ref": "#/components/parameters/Limit"
          },
          {
            "$ref": "#/components/parameters/Cursor"
          }
        ],
        "responses": {
          "200": {
            "description": "A page of jobs.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/AdminJobPage"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/jobs/{id}": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "get": {
        "operationId": "adminGetJob",
        "tags": [
          "admin"
        ],
        "summary": "Any tenant's job",
        "responses": {
          "200": {
            "description": "The job.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/AdminJob"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/jobs/{id}/cancel": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "post": {
        "operationId": "adminCancelJob",
        "tags": [
          "admin"
        ],
        "summary": "Cancel any tenant's job",
        "responses": {
          "200": {
            "$ref": "#/components/responses/AdminJobChanged"
          },
          "202": {
            "$ref": "#/components/responses/AdminJobStopRequested"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/IllegalTransition"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/jobs/{id}/pause": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "post": {
        "operationId": "adminPauseJob",
        "tags": [
          "admin"
        ],
        "summary": "Pause any tenant's job",
        "responses": {
          "200": {
            "$ref": "#/components/responses/AdminJobChanged"
          },
          "202": {
            "$ref": "#/components/responses/AdminJobStopRequested"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/IllegalTransition"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/jobs/{id}/resume": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "post": {
        "operationId": "adminResumeJob",
        "tags": [
          "admin"
        ],
        "summary": "Queue any tenant's paused job again",
        "responses": {
          "200": {
            "$ref": "#/components/responses/AdminJobChanged"
          },
          "202": {
            "$ref": "#/components/responses/AdminJobStopRequested"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/IllegalTransition"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/jobs/{id}/events": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "get": {
        "operationId": "streamJobEvents",
        "tags": [
          "events"
        ],
        "summary": "One job's events as Server-Sent Events",
        "description": "First the job's current state as a state event (or, with Last-Event-ID, the stored state events after it), then its changes and progress as they happen. The server ends the stream after the job's final state event (succeeded, failed, cancelled). Each event has an `id:` line (usable as Last-Event-ID), an `event:` line and one `data:` line of JSON. State events (`job.queued`, `job.running`, `job.paused`, `job.retrying`, `job.succeeded`, `job.failed`, `job.cancelled`) carry the job exactly as `GET /v1/jobs/{id}` returns it; `job.progress` events carry `{\"id\", \"bytes_done\", \"bytes_expected\" (or null), \"rate\" (bytes per second), \"eta_seconds\" (or null)}`, at most a few per second per job. `job.part` events (one per part of a multipart/x-mixed-replace response) carry the job as it was then, with the part in `part`. A `: keep-alive` comment comes every 15 s. Events written by any ferryd on the same database appear on every ferryd's streams.",
        "parameters": [
          {
            "$ref": "#/components/parameters/LastEventID"
          }
        ],
        "responses": {
          "200": {
            "description": "The event stream.",
            "headers": {
              "Cache-Control": {
                "required": true,
                "schema": {
                  "type": "string",
                  "enum": [
                    "no-store"
                  ]
                }
              }
            },
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "429": {
            "$ref": "#/components/responses/TooManyStreams"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/events": {
      "get": {
        "operationId": "streamEvents",
        "tags": [
          "events"
        ],
        "summary": "All of the tenant's job events as Server-Sent Events",
        "description": "Changes and progress of every job of the tenant from now on (or, with Last-Event-ID, the stored state events after it first). Each event has an `id:` line (usable as Last-Event-ID), an `event:` line and one `data:` line of JSON. State events (`job.queued`, `job.running`, `job.paused`, `job.retrying`, `job.succeeded`, `job.failed`, `job.cancelled`) carry the job exactly as `GET /v1/jobs/{id}` returns it; `job.progress` events carry `{\"id\", \"bytes_done\", \"bytes_expected\" (or null), \"rate\" (bytes per second), \"eta_seconds\" (or null)}`, at most a few per second per job. `job.part` events (one per part of a multipart/x-mixed-replace response) carry the job as it was then, with the part in `part`. A `: keep-alive` comment comes every 15 s. Events written by any ferryd on the same database appear on every ferryd's streams.",
        "parameters": [
          {
            "$ref": "#/components/parameters/LastEventID"
          }
        ],
        "responses": {
          "200": {
            "description": "The event stream.",
            "headers": {
              "Cache-Control": {
                "required": true,
                "schema": {
                  "type": "string",
                  "enum": [
                    "no-store"
                  ]
                }
              }
            },
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "429": {
            "$ref": "#/components/responses/TooManyStreams"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/webhooks/secret": {
      "get": {
        "operationId": "getWebhookSecret",
        "tags": [
          "webhooks"
        ],
        "summary": "The secret job callbacks are signed with",
        "description": "Made on first use. Job callbacks (`callback.url`) carry `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256>` per Standard Webhooks.",
        "responses": {
          "200": {
            "description": "The current secret.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WebhookSecret"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/webhooks/secret/rotate": {
      "post": {
        "operationId": "rotateWebhookSecret",
        "tags": [
          "webhooks"
        ],
        "summary": "Rotate the callback secret",
        "description": "The previous secret keeps signing for 24 hours: meanwhile each delivery carries both signatures (`v1,<new> v1,<old>`).",
        "responses": {
          "200": {
            "description": "The new secret.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WebhookSecret"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/webhooks/endpoints": {
      "post": {
        "operationId": "createWebhookEndpoint",
        "tags": [
          "webhooks"
        ],
        "summary": "Register a webhook endpoint",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewWebhookEndpoint"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The endpoint, with its secret.",
            "headers": {
              "Location": {
                "required": true,
                "description": "`/v1/webhooks/endpoints/{id}` of the new endpoint.",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CreatedWebhookEndpoint"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "413": {
            "$ref": "#/components/responses/ContentTooLarge"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "get": {
        "operationId": "listWebhookEndpoints",
        "tags": [
          "webhooks"
        ],
        "summary": "The tenant's webhook endpoints",
        "responses": {
          "200": {
            "description": "Oldest first, without secrets.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WebhookEndpointList"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/webhooks/endpoints/{id}": {
      "parameters": [
        {
          "$ref": "#/components/parameters/EndpointID"
        }
      ],
      "delete": {
        "operationId": "deleteWebhookEndpoint",
        "tags": [
          "webhooks"
        ],
        "summary": "Remove a webhook endpoint (and its pending deliveries)",
        "responses": {
          "204": {
            "description": "Removed."
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/webhooks/deliveries": {
      "get": {
        "operationId": "listWebhookDeliveries",
        "tags": [
          "webhooks"
        ],
        "summary": "Webhook deliveries, newest first, with their attempts",
        "parameters": [
          {
            "$ref": "#/components/parameters/DeliveryJob"
          }
        ],
        "responses": {
          "200": {
            "description": "At most 200 deliveries.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantWebhookDeliveryList"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/webhooks/deliveries/{id}/redeliver": {
      "parameters": [
        {
          "$ref": "#/components/parameters/DeliveryID"
        }
      ],
      "post": {
        "operationId": "redeliverWebhookDelivery",
        "tags": [
          "webhooks"
        ],
        "summary": "Send a delivery again",
        "description": "Due at once, with a fresh retry schedule and the same `webhook-id`.",
        "responses": {
          "202": {
            "description": "The delivery, pending.",
            "content": {
              "application/json": {
                "schema": {
                  "allOf": [
                    {
                      "$ref": "#/components/schemas/WebhookDelivery"
                    },
                    {
                      "not": {
                        "required": [
                          "tenant"
                        ]
                      }
                    }
                  ]
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/EndpointDisabled"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/webhooks/deliveries": {
      "get": {
        "operationId": "adminListWebhookDeliveries",
        "tags": [
          "admin"
        ],
        "summary": "Webhook deliveries, newest first, with their attempts, of every tenant",
        "parameters": [
          {
            "$ref": "#/components/parameters/DeliveryJob"
          }
        ],
        "responses": {
          "200": {
            "description": "At most 200 deliveries.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/AdminWebhookDeliveryList"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/webhooks/deliveries/{id}/redeliver": {
      "parameters": [
        {
          "$ref": "#/components/parameters/DeliveryID"
        }
      ],
      "post": {
        "operationId": "adminRedeliverWebhookDelivery",
        "tags": [
          "admin"
        ],
        "summary": "Send a delivery again",
        "description": "Due at once, with a fresh retry schedule and the same `webhook-id`.",
        "responses": {
          "202": {
            "description": "The delivery, pending.",
            "content": {
              "application/json": {
                "schema": {
                  "allOf": [
                    {
                      "$ref": "#/components/schemas/WebhookDelivery"
                    },
                    {
                      "required": [
                        "tenant"
                      ]
                    }
                  ]
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/EndpointDisabled"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/sessions/{id}/cookies": {
      "parameters": [
        {
          "$ref": "#/components/parameters/SessionID"
        }
      ],
      "get": {
        "operationId": "listSessionCookies",
        "tags": [
          "sessions"
        ],
        "summary": "The session's cookie jar",
        "description": "The cookies the session's jobs were given and send back (values included: the jar is the caller's own). A default or background session's jar is kept in the database, so each job of the session, on any ferryd, sends the cookies earlier jobs were given. Jobs outside a session keep no cookies.",
        "responses": {
          "200": {
            "description": "The session's unexpired cookies, oldest first.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CookieList"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "description": "The session is ephemeral (`session_ephemeral`): its cookies live only in the memory of the ferryd running its jobs.",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      },
      "delete": {
        "operationId": "clearSessionCookies",
        "tags": [
          "sessions"
        ],
        "summary": "Empty the session's cookie jar",
        "description": "The session's next jobs start without cookies (a job running now may still store some).",
        "responses": {
          "204": {
            "description": "The jar is empty."
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "description": "The session is ephemeral (`session_ephemeral`): its cookies live only in the memory of the ferryd running its jobs.",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/jobs/{id}/decision": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "post": {
        "operationId": "answerJobDecision",
        "tags": [
          "jobs"
        ],
        "summary": "Answer the decision a job waits for",
        "description": "The answer is stored and the job queued again: the next attempt replays the transfer to the decision and applies it, on any ferryd, after restarts too. cancel (a challenge) cancels the job and reject (a certificate) fails it with server_trust_rejected, at once.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/DecisionAnswer"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The job after the answer: queued, or cancelled or failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TenantJob"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/InvalidRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/NotWaitingForDecision"
          },
          "422": {
            "$ref": "#/components/responses/DecisionAnswerUnfit"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "description": "The gateway has no vault key to seal the credential with (`vault_unavailable`), or the database cannot be reached (`database_unavailable`, with `Retry-After`).",
            "headers": {
              "Retry-After": {
                "required": false,
                "description": "With `database_unavailable`: seconds to wait before trying again.",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/blobs/{id}": {
      "parameters": [
        {
          "$ref": "#/components/parameters/BlobID"
        }
      ],
      "delete": {
        "operationId": "deleteBlob",
        "tags": [
          "blobs"
        ],
        "summary": "Delete a blob and its file",
        "description": "Refused while a job that has not finished (queued, running, paused, retrying, waiting for a decision) has the blob as its body; a finished job that named it keeps its view.",
        "responses": {
          "204": {
            "description": "Deleted, with its file."
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "description": "A job that has not finished will send the blob (`blob_in_use`); cancel or delete that job first.",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          }
        }
      }
    },
    "/console": {
      "get": {
        "operationId": "console",
        "tags": [
          "console"
        ],
        "summary": "The operator console's page",
        "description": "Plain HTML, CSS and JavaScript compiled into ferryd; after sign-in with an API key (kept in the tab's session storage, sent as the bearer header) it uses only this API. Served with a strict Content-Security-Policy and an ETag (If-None-Match gives a 304).",
        "security": [],
        "responses": {
          "200": {
            "description": "The console's HTML page.",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "304": {
            "description": "Not modified since the ETag sent in If-None-Match."
          }
        }
      }
    },
    "/console/{asset}": {
      "get": {
        "operationId": "consoleAsset",
        "tags": [
          "console"
        ],
        "summary": "One of the console's files",
        "security": [],
        "parameters": [
          {
            "name": "asset",
            "in": "path",
            "required": true,
            "description": "A file name such as app.js or console.css.",
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The file, with its content type.",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              },
              "text/css": {
                "schema": {
                  "type": "string"
                }
              },
              "text/javascript": {
                "schema": {
                  "type": "string"
                }
              },
              "image/svg+xml": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "304": {
            "description": "Not modified since the ETag sent in If-None-Match."
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/v1/jobs/{id}/attempts": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "get": {
        "operationId": "listJobAttempts",
        "tags": [
          "jobs"
        ],
        "summary": "Every attempt at the job: when it ran, how it ended, bytes received",
        "responses": {
          "200": {
            "description": "The attempts, first first; none for a job no worker took yet.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/JobAttemptList"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/TenantKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/jobs/{id}/attempts": {
      "parameters": [
        {
          "$ref": "#/components/parameters/JobID"
        }
      ],
      "get": {
        "operationId": "adminListJobAttempts",
        "tags": [
          "admin"
        ],
        "summary": "Every attempt at any tenant's job",
        "responses": {
          "200": {
            "description": "The attempts, first first; none for a job no worker took yet.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/JobAttemptList"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    },
    "/v1/admin/overview": {
      "get": {
        "operationId": "adminOverview",
        "tags": [
          "admin"
        ],
        "summary": "The gateway at a glance",
        "description": "Jobs per state, bytes moved in each minute of the last hour, the oldest queued job, webhook deliveries that failed, and each tenant's running and queued jobs and stored bytes.",
        "responses": {
          "200": {
            "description": "The overview.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Overview"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/AdminKeyRequired"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/DatabaseUnavailable"
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "A tenant's API key for /v1 routes other than /v1/admin; the admin key for /v1/admin."
      }
    },
    "parameters": {
      "JobID": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "A job id; anything that is not a UUID is a 404.",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "TenantID": {
        "name": "tenant",
        "in": "path",
        "required": true,
        "description": "A tenant id; anything that is not a UUID is a 404.",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "KeyID": {
        "name": "key",
        "in": "path",
        "required": true,
        "description": "An API key's id (not the key).",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "State": {
        "name": "state",
        "in": "query",
        "required": false,
        "description": "Only jobs in this state.",
        "schema": {
          "$ref": "#/components/schemas/JobState"
        }
      },
      "Limit": {
        "name": "limit",
        "in": "query",
        "required": false,
        "description": "Items per page.",
        "schema": {
          "type": "integer",
          "minimum": 1,
          "maximum": 500,
          "default": 50
        }
      },
      "Cursor": {
        "name": "cursor",
        "in": "query",
        "required": false,
        "description": "The `next_cursor` of the previous page.",
        "schema": {
          "type": "string"
        }
      },
      "IdempotencyKey": {
        "name": "Idempotency-Key",
        "in": "header",
        "required": false,
        "description": "1 to 255 visible ASCII characters, per tenant.",
        "schema": {
          "type": "string",
          "minLength": 1,
          "maxLength": 255,
          "pattern": "^[!-~]+$"
        }
      },
      "Range": {
        "name": "Range",
        "in": "header",
        "required": false,
        "description": "One byte range (RFC 9110 §14.2), e.g. `bytes=1000-` or `bytes=-500`.",
        "schema": {
          "type": "string"
        }
      },
      "IfRange": {
        "name": "If-Range",
        "in": "header",
        "required": false,
        "description": "The content's ETag: the range applies only while it matches.",
        "schema": {
          "type": "string"
        }
      },
      "SessionID": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "A session id; anything that is not a UUID is a 404.",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "LastEventID": {
        "name": "Last-Event-ID",
        "in": "header",
        "required": false,
        "description": "The id of the last event a reconnecting client received: the stored state events after it are replayed, then the stream continues live. Events are kept for the server's event retention (FERRY_EVENT_RETENTION_DAYS, 7 days by default).",
        "schema": {
          "type": "string",
          "pattern": "^[0-9]+$"
        }
      },
      "EndpointID": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "A webhook endpoint id; anything that is not a UUID is a 404.",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "DeliveryID": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "A webhook delivery id; anything that is not a UUID is a 404.",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "DeliveryJob": {
        "name": "job",
        "in": "query",
        "required": false,
        "description": "Only this job's deliveries.",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "CredentialID": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "A credential id; anything that is not a UUID is a 404.",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "BlobID": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "A blob id; anything that is not a UUID is a 404.",
        "schema": {
          "type": "string",
          "format": "uuid"
        }
      },
      "PreferWait": {
        "name": "Prefer",
        "in": "header",
        "required": false,
        "description": "`wait=N` (RFC 7240 §4.3): wait up to N seconds (at most 60) for the job to end, and answer 200 with the finished job (and its content) if it does. A job still running after N seconds is answered as without the preference (201). `respond-async`, or a preference that cannot be read, is ignored.",
        "schema": {
          "type": "string"
        }
      },
      "URLContains": {
        "name": "url_contains",
        "in": "query",
        "required": false,
        "description": "Only jobs whose request URL contains this text, letter case aside (1 to 8,192 bytes).",
        "schema": {
          "type": "string",
          "minLength": 1
        }
      }
    },
    "responses": {
      "InvalidRequest": {
        "description": "`invalid_request`: `errors` names every bad field (a dotted path into the body, or the query parameter or header).",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/ValidationProblem"
            }
          }
        }
      },
      "Unauthorized": {
        "description": "No, a malformed, an unknown or a revoked API key (`unauthenticated`, `invalid_api_key`).",
        "headers": {
          "WWW-Authenticate": {
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "TenantKeyRequired": {
        "description": "The admin key on a tenant's route (`tenant_key_required`).",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "AdminKeyRequired": {
        "description": "A tenant's key on an admin route (`admin_key_required`).",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "NotFound": {
        "description": "No such thing, or another tenant's (`not_found`).",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "IllegalTransition": {
        "description": "The job's state does not allow this (`illegal_transition`).",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "ContentTooLarge": {
        "description": "The body is too large (`body_too_large`): JSON bodies at most 1 MiB, blobs at most 64 GiB.",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "InternalError": {
        "description": "The server failed (`internal_error`); the detail says nothing about internals.",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "TenantJobChanged": {
        "description": "The job changed at once (it was not running).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/TenantJob"
            }
          }
        }
      },
      "TenantJobStopRequested": {
        "description": "The job is running: its worker was asked to stop (`stop_requested`) and will soon.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/TenantJob"
            }
          }
        }
      },
      "AdminJobChanged": {
        "description": "The job changed at once (it was not running).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/AdminJob"
            }
          }
        }
      },
      "AdminJobStopRequested": {
        "description": "The job is running: its worker was asked to stop (`stop_requested`) and will soon.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/AdminJob"
            }
          }
        }
      },
      "EndpointDisabled": {
        "description": "The delivery's endpoint was disabled after a 410 Gone (`endpoint_disabled`).",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "DecisionAnswerUnfit": {
        "description": "The answer does not fit the pending decision (`decision_answer_invalid`; `errors` names the fields), or names a vault credential the tenant does not have.",
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "required": [
                    "errors"
                  ],
                  "properties": {
                    "code": {
                      "const": "decision_answer_invalid"
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "NotWaitingForDecision": {
        "description": "The job is not waiting for a decision (`job_not_waiting_for_decision`), or waits for another one than `decision_id` (`decision_changed`).",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "TooManyStreams": {
        "description": "The tenant has `FERRY_MAX_EVENT_STREAMS_PER_TENANT` event streams open on this server already (`too_many_streams`); a stream whose client went away frees its place within 15 s.",
        "headers": {
          "Retry-After": {
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      },
      "DatabaseUnavailable": {
        "description": "The database cannot be reached (`database_unavailable`): answered at once (within about 2 seconds of the database going away), never a hang or a 500. Try again after `Retry-After` seconds; a write that got this answer may or may not have been made, so retry it with the same `Idempotency-Key`.",
        "headers": {
          "Retry-After": {
            "required": true,
            "description": "Seconds to wait before trying again.",
            "schema": {
              "type": "string"
            }
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      }
    },
    "schemas": {
      "ID": {
        "type": "string",
        "format": "uuid",
        "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
      },
      "Timestamp": {
        "type": "string",
        "format": "date-time"
      },
      "SHA256": {
        "type": "string",
        "pattern": "^[0-9a-f]{64}$"
      },
      "HeaderMap": {
        "type": "object",
        "description": "Lower-case names; repeated fields joined with \", \"; credentials shown as <redacted>.",
        "additionalProperties": {
          "type": "string"
        }
      },
      "JobState": {
        "type": "string",
        "enum": [
          "queued",
          "running",
          "paused",
          "waiting_for_decision",
          "retrying",
          "succeeded",
          "failed",
          "cancelled"
        ]
      },
      "Job": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "kind",
          "state",
          "attempt",
          "max_attempts",
          "priority",
          "created_at",
          "updated_at",
          "request",
          "progress"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/ID"
          },
          "tenant": {
            "$ref": "#/components/schemas/ID",
            "description": "Whose job: only in /v1/admin views."
          },
          "kind": {
            "type": "string",
            "enum": [
              "download",
              "upload",
              "data"
            ]
          },
          "state": {
            "$ref": "#/components/schemas/JobState"
          },
          "stop_requested": {
            "type": "string",
            "enum": [
              "pause",
              "cancel"
            ],
            "description": "A running job's worker was asked to stop."
          },
          "attempt": {
            "type": "integer",
            "minimum": 0
          },
          "max_attempts": {
            "type": "integer",
            "minimum": 1
          },
          "priority": {
            "type": "integer",
            "description": "Higher runs first."
          },
          "session": {
            "$ref": "#/components/schemas/ID"
          },
          "created_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "updated_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "finished_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "request": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "url",
              "method",
              "headers"
            ],
            "properties": {
              "url": {
                "type": "string"
              },
              "method": {
                "type": "string"
              },
              "headers": {
                "$ref": "#/components/schemas/HeaderMap"
              }
            }
          },
          "progress": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "bytes_done"
            ],
            "properties": {
              "bytes_done": {
                "type": "integer",
                "minimum": 0
              },
              "bytes_expected": {
                "type": "integer",
                "minimum": 0
              },
              "rate": {
                "type": "integer",
                "minimum": 0,
                "description": "Bytes per second."
              }
            }
          },
          "response": {
            "type": "object",
            "description": "The final response of the last attempt.",
            "additionalProperties": false,
            "required": [
              "headers",
              "url"
            ],
            "properties": {
              "status": {
                "type": "integer"
              },
              "headers": {
                "$ref": "#/components/schemas/HeaderMap"
              },
              "url": {
                "type": "string"
              }
            }
          },
          "result": {
            "type": "object",
            "description": "What a succeeded job produced: its content.",
            "additionalProperties": false,
            "required": [
              "size",
              "sha256"
            ],
            "properties": {
              "size": {
                "type": "integer",
                "minimum": 0
              },
              "sha256": {
                "$ref": "#/components/schemas/SHA256"
              },
              "content_type": {
                "type": "string"
              },
              "cache": {
                "type": "string",
                "enum": [
                  "hit",
                  "revalidated",
                  "miss",
                  "stale"
                ],
                "description": "What the cache did: `hit` served from the cache without asking the origin, `revalidated` the origin confirmed the stored entry (304), `miss` the origin sent the response, `stale` served from the cache although stale, as the origin allowed (`stale-while-revalidate`: the origin is asked again in the background; `stale-if-error`: the origin failed or answered 500, 502, 503 or 504; RFC 5861). Absent when no cache took part (not an http or https URL)."
              },
              "content_expired": {
                "type": "boolean",
                "const": true,
                "description": "Present once the content passed its retention (`retention_days`, else `FERRY_CONTENT_RETENTION_DAYS`) and was removed; `size` and `sha256` stay."
              },
              "parts": {
                "type": "integer",
                "minimum": 1,
                "description": "Present when the response was multipart/x-mixed-replace: how many parts it had. The content (and `size`, `sha256`, `content_type`) is the last complete part's; each part was announced by a `job.part` event."
              }
            }
          },
          "error": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "code",
              "message"
            ],
            "properties": {
              "code": {
                "type": "string"
              },
              "message": {
                "type": "string"
              }
            }
          },
          "decision": {
            "$ref": "#/components/schemas/PendingDecision",
            "description": "Only while the job is waiting_for_decision."
          },
          "part": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "index",
              "headers",
              "size"
            ],
            "description": "Only in a `job.part` event (stream or webhook): a part of the job's multipart/x-mixed-replace response ended. `index` counts from 1; `headers` are the part's own, credential-bearing ones `<redacted>` as in `response.headers`; `size` is its body's length in bytes.",
            "properties": {
              "index": {
                "type": "integer",
                "minimum": 1
              },
              "headers": {
                "$ref": "#/components/schemas/HeaderMap"
              },
              "size": {
                "type": "integer",
                "minimum": 0
              }
            }
          },
          "content": {
            "$ref": "#/components/schemas/JobContent"
          },
          "not_before": {
            "$ref": "#/components/schemas/Timestamp",
            "description": "The earliest start the submission asked for (BG-18)."
          }
        }
      },
      "TenantJob": {
        "description": "A job as its tenant sees it: without `tenant`.",
        "allOf": [
          {
            "$ref": "#/components/schemas/Job"
          },
          {
            "not": {
              "required": [
                "tenant"
              ]
            }
          }
        ]
      },
      "AdminJob": {
        "description": "A job as the admin sees it: with `tenant`.",
        "allOf": [
          {
            "$ref": "#/components/schemas/Job"
          },
          {
            "required": [
              "tenant"
            ]
          }
        ]
      },
      "TenantJobBatch": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "jobs"
        ],
        "properties": {
          "jobs": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/TenantJob"
            }
          }
        }
      },
      "JobBatchSubmission": {
        "type": "object",
        "required": [
          "jobs"
        ],
        "properties": {
          "jobs": {
            "type": "array",
            "minItems": 1,
            "maxItems": 1000,
            "items": {
              "$ref": "#/components/schemas/JobSubmission"
            }
          }
        }
      },
      "TenantJobPage": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "jobs"
        ],
        "properties": {
          "jobs": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/TenantJob"
            }
          },
          "next_cursor": {
            "type": "string",
            "description": "Absent on the last page."
          }
        }
      },
      "AdminJobPage": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "jobs"
        ],
        "properties": {
          "jobs": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/AdminJob"
            }
          },
          "next_cursor": {
            "type": "string",
            "description": "Absent on the last page."
          }
        }
      },
      "JobSubmission": {
        "type": "object",
        "required": [
          "kind",
          "request"
        ],
        "properties": {
          "kind": {
            "type": "string",
            "enum": [
              "download",
              "upload",
              "data"
            ]
          },
          "request": {
            "type": "object",
            "required": [
              "url"
            ],
            "properties": {
              "url": {
                "type": "string",
                "description": "Absolute: http, https, ftp or ftps, without user information."
              },
              "method": {
                "type": "string",
                "description": "Default GET, or POST for uploads."
              },
              "headers": {
                "type": "object",
                "maxProperties": 64,
                "additionalProperties": {
                  "type": "string",
                  "maxLength": 8192
                },
                "description": "Not hop-by-hop fields, Host, Content-Length, Expect or Proxy-Authorization."
              },
              "body": {
                "description": "A string (sent as UTF-8), or exactly one of base64 bytes, a blob of this tenant, or a succeeded job's content. Upload jobs need one.",
                "oneOf": [
                  {
                    "type": "string"
                  },
                  {
                    "type": "object",
                    "required": [
                      "base64"
                    ],
                    "properties": {
                      "base64": {
                        "type": "string",
                        "contentEncoding": "base64"
                      }
                    }
                  },
                  {
                    "type": "object",
                    "required": [
                      "blob"
                    ],
                    "properties": {
                      "blob": {
                        "type": "string",
                        "format": "uuid"
                      }
                    }
                  },
                  {
                    "type": "object",
                    "required": [
                      "job"
                    ],
                    "properties": {
                      "job": {
                        "type": "string",
                        "format": "uuid"
                      }
                    }
                  }
                ]
              }
            }
          },
          "session": {
            "type": "string",
            "format": "uuid"
          },
          "priority": {
            "type": "integer",
            "minimum": -1000,
            "maximum": 1000,
            "default": 0
          },
          "retry": {
            "type": "object",
            "properties": {
              "max_attempts": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "default": 3
              }
            }
          },
          "timeouts": {
            "type": "object",
            "properties": {
              "idle": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 3600,
                "description": "Seconds."
              },
              "total": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 604800,
                "description": "Seconds."
              }
            }
          },
          "redirects": {
            "type": "object",
            "properties": {
              "follow": {
                "type": "boolean",
                "default": true
              },
              "max": {
                "type": "integer",
                "minimum": 0,
                "maximum": 20,
                "default": 10
              }
            }
          },
          "checksum": {
            "type": "object",
            "properties": {
              "sha256": {
                "type": "string",
                "pattern": "^[0-9A-Fa-f]{64}$"
              }
            }
          },
          "callback": {
            "type": "object",
            "required": [
              "url"
            ],
            "properties": {
              "url": {
                "type": "string",
                "description": "http or https."
              }
            }
          },
          "cache_policy": {
            "$ref": "#/components/schemas/CachePolicy",
            "description": "Default: the session's cache_policy, else use_protocol."
          },
          "decisions": {
            "$ref": "#/components/schemas/DecisionPolicy"
          },
          "compressed": {
            "type": "boolean",
            "default": false,
            "description": "Ask the origin for a compressed body (Accept-Encoding) and store it decoded. By default a job asks for the origin's own bytes (identity), which a checksum is computed over and which a paused, retried or taken-over attempt continues where it stopped; a compressed job restarts from byte 0 whenever it is resumed."
          },
          "retention_days": {
            "type": "integer",
            "minimum": 1,
            "maximum": 36500,
            "description": "Days the content is kept after the job succeeded; then it is removed and the job says `result.content_expired`. Default: `FERRY_CONTENT_RETENTION_DAYS` (for ever unless set)."
          },
          "cookies": {
            "type": "boolean",
            "description": "false: the job's requests neither send its session's cookies nor store the ones they are given (CK-02). Absent or true: they do."
          },
          "not_before": {
            "type": "string",
            "maxLength": 40,
            "description": "An RFC 3339 date-time with an offset, at most 366 days ahead: the job is not started before it (BG-18); a time already past means now. Also for each job of a batch."
          }
        }
      },
      "Blob": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "size",
          "sha256"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/ID"
          },
          "size": {
            "type": "integer",
            "minimum": 0
          },
          "sha256": {
            "$ref": "#/components/schemas/SHA256"
          },
          "content_type": {
            "type": "string",
            "description": "The upload's Content-Type, when it had one."
          },
          "created_at": {
            "type": "string",
            "format": "date-time",
            "description": "In listings; the reply to PUT has none."
          }
        }
      },
      "NewTenant": {
        "type": "object",
        "required": [
          "name"
        ],
        "properties": {
          "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "max_running_jobs": {
            "type": "integer",
            "minimum": 1
          },
          "max_queued_jobs": {
            "type": "integer",
            "minimum": 1
          },
          "max_storage_bytes": {
            "type": "integer",
            "minimum": 0,
            "maximum": 9223372036854775807,
            "description": "Bytes of blobs and succeeded jobs' content the tenant may store together; beyond it a blob upload is a 507 `storage_quota_exceeded` and a job fails with `storage_quota_exceeded`. Absent: ferryd's `FERRY_MAX_STORAGE_BYTES_PER_TENANT` (unlimited unless set)."
          },
          "content_retention_days": {
            "type": "integer",
            "minimum": 1,
            "maximum": 36500,
            "description": "Days a succeeded job's content and an unused blob of this tenant are kept, unless the job says otherwise (`retention_days`); null or absent: ferryd's `FERRY_CONTENT_RETENTION_DAYS`."
          }
        }
      },
      "Tenant": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "name",
          "created_at",
          "disabled"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/ID"
          },
          "name": {
            "type": "string"
          },
          "max_running_jobs": {
            "type": "integer",
            "minimum": 1
          },
          "max_queued_jobs": {
            "type": "integer",
            "minimum": 1
          },
          "max_storage_bytes": {
            "type": "integer",
            "minimum": 0,
            "maximum": 9223372036854775807,
            "description": "Bytes of blobs and succeeded jobs' content the tenant may store together; beyond it a blob upload is a 507 `storage_quota_exceeded` and a job fails with `storage_quota_exceeded`. Absent: ferryd's `FERRY_MAX_STORAGE_BYTES_PER_TENANT` (unlimited unless set)."
          },
          "content_retention_days": {
            "type": "integer",
            "minimum": 1,
            "maximum": 36500,
            "description": "Days a succeeded job's content and an unused blob of this tenant are kept, unless the job says otherwise (`retention_days`); null or absent: ferryd's `FERRY_CONTENT_RETENTION_DAYS`."
          },
          "created_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "disabled": {
            "type": "boolean"
          },
          "api_key": {
            "type": "string",
            "description": "The tenant's first API key: only when the tenant is created."
          }
        }
      },
      "CreatedTenant": {
        "allOf": [
          {
            "$ref": "#/components/schemas/Tenant"
          },
          {
            "required": [
              "api_key"
            ]
          }
        ]
      },
      "TenantList": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "tenants"
        ],
        "properties": {
          "tenants": {
            "type": "array",
            "items": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Tenant"
                },
                {
                  "not": {
                    "required": [
                      "api_key"
                    ]
                  }
                }
              ]
            }
          }
        }
      },
      "NewKey": {
        "type": "object",
        "properties": {
          "label": {
            "type": "string",
            "maxLength": 200
          }
        }
      },
      "Key": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "created_at",
          "revoked"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/ID"
          },
          "label": {
            "type": "string"
          },
          "created_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "revoked": {
            "type": "boolean"
          },
          "api_key": {
            "type": "string",
            "description": "The key itself: only when it is created."
          }
        }
      },
      "CreatedKey": {
        "allOf": [
          {
            "$ref": "#/components/schemas/Key"
          },
          {
            "required": [
              "api_key"
            ]
          }
        ]
      },
      "KeyList": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "keys"
        ],
        "properties": {
          "keys": {
            "type": "array",
            "items": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Key"
                },
                {
                  "not": {
                    "required": [
                      "api_key"
                    ]
                  }
                }
              ]
            }
          }
        }
      },
      "HealthStatus": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "status"
        ],
        "properties": {
          "status": {
            "const": "ok"
          }
        }
      },
      "ReadyStatus": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "status"
        ],
        "properties": {
          "status": {
            "const": "ready"
          }
        }
      },
      "Problem": {
        "type": "object",
        "description": "RFC 9457 problem details with a stable `code`.",
        "additionalProperties": false,
        "required": [
          "type",
          "title",
          "status",
          "detail",
          "code"
        ],
        "properties": {
          "type": {
            "type": "string",
            "format": "uri",
            "description": "https://ferry.invalid/problems/{code}"
          },
          "title": {
            "type": "string",
            "description": "The status's reason phrase."
          },
          "status": {
            "type": "integer",
            "minimum": 400,
            "maximum": 599
          },
          "detail": {
            "type": "string"
          },
          "code": {
            "type": "string",
            "pattern": "^[a-z0-9_]+$"
          },
          "errors": {
            "type": "array",
            "minItems": 1,
            "items": {
              "$ref": "#/components/schemas/FieldError"
            }
          }
        }
      },
      "ValidationProblem": {
        "allOf": [
          {
            "$ref": "#/components/schemas/Problem"
          },
          {
            "required": [
              "errors"
            ],
            "properties": {
              "code": {
                "const": "invalid_request"
              }
            }
          }
        ]
      },
      "FieldError": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "field",
          "message"
        ],
        "properties": {
          "field": {
            "type": "string",
            "description": "A dotted path into the body (`request.url`, `retry.max_attempts`), `body`, or a query parameter or header name."
          },
          "message": {
            "type": "string"
          }
        }
      },
      "SessionConfiguration": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "additional_headers"
        ],
        "properties": {
          "timeouts": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "idle"
            ],
            "properties": {
              "idle": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 3600
              }
            }
          },
          "max_connections_per_host": {
            "type": "integer",
            "minimum": 1,
            "maximum": 64
          },
          "tls": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "minimum": {
                "type": "string",
                "enum": [
                  "1.0",
                  "1.1",
                  "1.2",
                  "1.3"
                ]
              },
              "maximum": {
                "type": "string",
                "enum": [
                  "1.0",
                  "1.1",
                  "1.2",
                  "1.3"
                ]
              }
            }
          },
          "proxy": {
            "type": "string",
            "description": "http://host:port or socks5h://host:port; a password in it is shown as <redacted>."
          },
          "additional_headers": {
            "$ref": "#/components/schemas/HeaderMap"
          },
          "cache_policy": {
            "$ref": "#/components/schemas/CachePolicy"
          },
          "decisions": {
            "$ref": "#/components/schemas/DecisionPolicy"
          },
          "cookie_accept_policy": {
            "type": "string",
            "enum": [
              "always",
              "never",
              "only_from_main_document_domain"
            ],
            "description": "Which response cookies the session's jar accepts (CK-05): all, none, or only those of the site the request is sent to. Absent: always."
          }
        }
      },
      "NewSession": {
        "type": "object",
        "properties": {
          "kind": {
            "type": "string",
            "enum": [
              "default",
              "ephemeral",
              "background"
            ],
            "default": "default"
          },
          "configuration": {
            "type": "object",
            "properties": {
              "timeouts": {
                "type": "object",
                "additionalProperties": false,
                "required": [
                  "idle"
                ],
                "properties": {
                  "idle": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 3600
                  }
                }
              },
              "max_connections_per_host": {
                "type": "integer",
                "minimum": 1,
                "maximum": 64
              },
              "tls": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "minimum": {
                    "type": "string",
                    "enum": [
                      "1.0",
                      "1.1",
                      "1.2",
                      "1.3"
                    ]
                  },
                  "maximum": {
                    "type": "string",
                    "enum": [
                      "1.0",
                      "1.1",
                      "1.2",
                      "1.3"
                    ]
                  }
                }
              },
              "proxy": {
                "type": "string",
                "description": "http://host:port or socks5h://host:port; a password in it is shown as <redacted>."
              },
              "additional_headers": {
                "type": "object",
                "additionalProperties": {
                  "type": "string"
                }
              },
              "cache_policy": {
                "$ref": "#/components/schemas/CachePolicy",
                "description": "The default of the session's jobs."
              },
              "decisions": {
                "$ref": "#/components/schemas/DecisionPolicy",
                "description": "The default of the session's jobs."
              },
              "cookie_accept_policy": {
                "type": "string",
                "enum": [
                  "always",
                  "never",
                  "only_from_main_document_domain"
                ],
                "description": "Which response cookies the session's jar accepts (CK-05): all, none, or only those of the site the request is sent to. Absent: always."
              }
            }
          }
        }
      },
      "Session": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "kind",
          "configuration",
          "created_at"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/ID"
          },
          "kind": {
            "type": "string",
            "enum": [
              "default",
              "ephemeral",
              "background"
            ]
          },
          "configuration": {
            "$ref": "#/components/schemas/SessionConfiguration"
          },
          "created_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "invalidated_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "invalidation_mode": {
            "type": "string",
            "enum": [
              "finish",
              "cancel"
            ]
          }
        }
      },
      "SessionList": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "sessions"
        ],
        "properties": {
          "sessions": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Session"
            }
          }
        }
      },
      "WebhookSecret": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "secret"
        ],
        "properties": {
          "secret": {
            "type": "string",
            "pattern": "^whsec_[A-Za-z0-9+/]+={0,2}$",
            "description": "`whsec_` and base64 of the key: verify `webhook-signature` with HMAC-SHA256 over `id.timestamp.body` keyed with the decoded bytes."
          },
          "previous_valid_until": {
            "$ref": "#/components/schemas/Timestamp",
            "description": "After a rotation: until then deliveries are also signed with the previous secret."
          }
        }
      },
      "WebhookEventType": {
        "type": "string",
        "enum": [
          "job.queued",
          "job.running",
          "job.paused",
          "job.decision_required",
          "job.retrying",
          "job.succeeded",
          "job.failed",
          "job.cancelled",
          "job.progress",
          "job.part"
        ]
      },
      "NewWebhookEndpoint": {
        "type": "object",
        "required": [
          "url",
          "events"
        ],
        "properties": {
          "url": {
            "type": "string",
            "description": "http or https; its addresses pass the same guard as jobs' at every connection."
          },
          "events": {
            "type": "array",
            "minItems": 1,
            "items": {
              "$ref": "#/components/schemas/WebhookEventType"
            },
            "description": "`job.progress` is sent at most once per job every 5 s."
          }
        }
      },
      "WebhookEndpoint": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "url",
          "events",
          "created_at"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/ID"
          },
          "url": {
            "type": "string"
          },
          "events": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/WebhookEventType"
            }
          },
          "created_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "disabled_at": {
            "$ref": "#/components/schemas/Timestamp",
            "description": "When the receiver answered 410 Gone; no more deliveries are made."
          },
          "disabled_reason": {
            "type": "string"
          },
          "secret": {
            "type": "string",
            "pattern": "^whsec_[A-Za-z0-9+/]+={0,2}$",
            "description": "Only in the response that created the endpoint."
          }
        }
      },
      "CreatedWebhookEndpoint": {
        "description": "A new endpoint, with its secret (shown this once).",
        "allOf": [
          {
            "$ref": "#/components/schemas/WebhookEndpoint"
          },
          {
            "required": [
              "secret"
            ]
          }
        ]
      },
      "WebhookEndpointList": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "endpoints"
        ],
        "properties": {
          "endpoints": {
            "type": "array",
            "items": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/WebhookEndpoint"
                },
                {
                  "not": {
                    "required": [
                      "secret"
                    ]
                  }
                }
              ]
            }
          }
        }
      },
      "WebhookAttempt": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "attempt",
          "started_at",
          "latency_ms"
        ],
        "properties": {
          "attempt": {
            "type": "integer",
            "minimum": 1
          },
          "started_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "latency_ms": {
            "type": "integer",
            "minimum": 0
          },
          "response_status": {
            "type": "integer",
            "description": "What the receiver answered; absent when it did not answer."
          },
          "error": {
            "type": "string",
            "description": "Why there was no usable answer (refused, timed out, redirected, ...)."
          }
        }
      },
      "WebhookDelivery": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "job",
          "webhook_id",
          "type",
          "url",
          "status",
          "created_at",
          "attempts"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/ID"
          },
          "tenant": {
            "$ref": "#/components/schemas/ID"
          },
          "job": {
            "$ref": "#/components/schemas/ID"
          },
          "webhook_id": {
            "type": "string",
            "description": "The `webhook-id` header of every attempt: the event's id."
          },
          "type": {
            "$ref": "#/components/schemas/WebhookEventType"
          },
          "url": {
            "type": "string"
          },
          "endpoint": {
            "$ref": "#/components/schemas/ID",
            "description": "Absent for the job's own callback."
          },
          "status": {
            "type": "string",
            "enum": [
              "pending",
              "delivered",
              "failed"
            ]
          },
          "next_attempt_at": {
            "$ref": "#/components/schemas/Timestamp",
            "description": "While pending."
          },
          "created_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "delivered_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "attempts": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/WebhookAttempt"
            }
          }
        }
      },
      "TenantWebhookDeliveryList": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "deliveries"
        ],
        "properties": {
          "deliveries": {
            "type": "array",
            "items": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/WebhookDelivery"
                },
                {
                  "not": {
                    "required": [
                      "tenant"
                    ]
                  }
                }
              ]
            }
          }
        }
      },
      "AdminWebhookDeliveryList": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "deliveries"
        ],
        "properties": {
          "deliveries": {
            "type": "array",
            "items": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/WebhookDelivery"
                },
                {
                  "required": [
                    "tenant"
                  ]
                }
              ]
            }
          }
        }
      },
      "CredentialProtectionSpace": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "scheme",
          "host",
          "port",
          "method"
        ],
        "properties": {
          "scheme": {
            "type": "string",
            "enum": [
              "http",
              "https",
              "ftp",
              "ftps"
            ]
          },
          "host": {
            "type": "string",
            "description": "Lower case; an IPv6 address without brackets."
          },
          "port": {
            "type": "integer",
            "minimum": 1,
            "maximum": 65535
          },
          "realm": {
            "type": "string",
            "description": "Absent: any realm of the server."
          },
          "method": {
            "type": "string",
            "enum": [
              "basic",
              "digest",
              "bearer",
              "client_certificate",
              "server_trust"
            ]
          }
        }
      },
      "NewCredential": {
        "type": "object",
        "required": [
          "protection_space"
        ],
        "description": "The secret fields the method takes, and no others: basic and digest `username` and `password`; bearer `token`; client_certificate `identity` (PEM certificate and private key, or base64 PKCS#12) and an optional `passphrase`; server_trust `pins` and/or `ca_certificate`. Error messages name fields, never their values.",
        "properties": {
          "protection_space": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "scheme",
              "host",
              "method"
            ],
            "properties": {
              "scheme": {
                "type": "string",
                "enum": [
                  "http",
                  "https",
                  "ftp",
                  "ftps"
                ],
                "description": "http or https for basic, digest and bearer; https or ftps for client_certificate and server_trust."
              },
              "host": {
                "type": "string",
                "description": "A host name or IP address, matched as the request URL names it."
              },
              "port": {
                "type": "integer",
                "minimum": 1,
                "maximum": 65535,
                "description": "Default: the scheme's."
              },
              "realm": {
                "type": "string",
                "description": "Only this realm (basic, digest, bearer); absent: any realm of the server."
              },
              "method": {
                "type": "string",
                "enum": [
                  "basic",
                  "digest",
                  "bearer",
                  "client_certificate",
                  "server_trust"
                ]
              }
            }
          },
          "persistence": {
            "type": "string",
            "enum": [
              "permanent",
              "session"
            ],
            "description": "permanent: every job of the tenant; session: only the jobs of `session`. Default: session when `session` is given, else permanent."
          },
          "session": {
            "type": "string",
            "format": "uuid",
            "description": "A live session of the tenant, for persistence session."
          },
          "username": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1024
          },
          "password": {
            "type": "string",
            "maxLength": 8192
          },
          "token": {
            "type": "string",
            "minLength": 1,
            "maxLength": 8192,
            "pattern": "^[!-~]+$"
          },
          "identity": {
            "type": "string"
          },
          "passphrase": {
            "type": "string"
          },
          "pins": {
            "type": "array",
            "minItems": 1,
            "maxItems": 32,
            "items": {
              "type": "string",
              "pattern": "^sha256//"
            },
            "description": "SHA-256 public-key pins (`sha256//` and the base64 of the SHA-256 of the SubjectPublicKeyInfo): the server at this host and port must present a certificate whose public key is one of them. A pin only narrows trust: the certificate must still be trusted (by the system's CAs or this credential's `ca_certificate`)."
          },
          "ca_certificate": {
            "type": "string",
            "description": "PEM. Trusted for this host and port only, both as the server's own certificate (a self-signed server) and as a CA that issued the server's certificate (a private CA), in addition to the system's CAs."
          }
        }
      },
      "Credential": {
        "type": "object",
        "additionalProperties": false,
        "description": "A stored credential: where it applies and which kind of secret it holds. The secret itself is never returned.",
        "required": [
          "id",
          "protection_space",
          "persistence",
          "secret_kind",
          "key_id",
          "created_at"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/ID"
          },
          "protection_space": {
            "$ref": "#/components/schemas/CredentialProtectionSpace"
          },
          "persistence": {
            "type": "string",
            "enum": [
              "permanent",
              "session"
            ]
          },
          "session": {
            "$ref": "#/components/schemas/ID"
          },
          "secret_kind": {
            "type": "string",
            "enum": [
              "password",
              "token",
              "identity",
              "trust"
            ]
          },
          "key_id": {
            "type": "string",
            "description": "Which vault key the secret is sealed with (a fingerprint, not the key)."
          },
          "created_at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "resealed_at": {
            "$ref": "#/components/schemas/Timestamp",
            "description": "When `ferryd admin rotate-vault-key` last sealed it again."
          }
        }
      },
      "CredentialPage": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "credentials"
        ],
        "properties": {
          "credentials": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Credential"
            }
          },
          "next_cursor": {
            "type": "string",
            "description": "Absent on the last page."
          }
        }
      },
      "CachePolicy": {
        "type": "string",
        "enum": [
          "use_protocol",
          "reload_ignoring_cache",
          "return_cache_else_load",
          "return_cache_dont_load"
        ],
        "description": "How a job uses its tenant's HTTP cache (a private cache, RFC 9111). `use_protocol` (the default): a fresh entry is served, a stale one revalidated with a conditional request, anything else fetched. `reload_ignoring_cache`: always from the origin (the response may still be stored). `return_cache_else_load`: any entry, however old, else from the origin. `return_cache_dont_load`: only an entry; without one the job fails with `not_in_cache`. Only http and https GETs are cached. Jobs in an ephemeral session use a cache in memory only, their session's own."
      },
      "Cookie": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "name",
          "value",
          "domain",
          "path",
          "secure",
          "http_only",
          "host_only"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "value": {
            "type": "string",
            "description": "A credential: shown to the session's own tenant, never logged."
          },
          "domain": {
            "type": "string",
            "description": "Lower case, without a leading dot."
          },
          "path": {
            "type": "string"
          },
          "expires": {
            "$ref": "#/components/schemas/Timestamp",
            "description": "Absent for a cookie that lasts as long as the session."
          },
          "secure": {
            "type": "boolean"
          },
          "http_only": {
            "type": "boolean"
          },
          "same_site": {
            "type": "string",
            "enum": [
              "Strict",
              "Lax",
              "None"
            ]
          },
          "host_only": {
            "type": "boolean",
            "description": "Set without a Domain attribute: sent back to exactly that host only."
          }
        }
      },
      "CookieList": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "cookies"
        ],
        "properties": {
          "cookies": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Cookie"
            }
          }
        }
      },
      "DecisionPolicy": {
        "type": "object",
        "additionalProperties": false,
        "description": "Which decisions the client makes. A job's own values win over its session's. server_trust asks only about certificate chains default evaluation refuses.",
        "properties": {
          "auth_challenge": {
            "type": "string",
            "enum": [
              "ask",
              "default"
            ],
            "description": "ask: the job stops in waiting_for_decision until the client answers with POST /v1/jobs/{id}/decision; default: the engine decides as without a delegate."
          },
          "redirect": {
            "type": "string",
            "enum": [
              "ask",
              "default"
            ],
            "description": "ask: the job stops in waiting_for_decision until the client answers with POST /v1/jobs/{id}/decision; default: the engine decides as without a delegate."
          },
          "server_trust": {
            "type": "string",
            "enum": [
              "ask",
              "default"
            ],
            "description": "ask: the job stops in waiting_for_decision until the client answers with POST /v1/jobs/{id}/decision; default: the engine decides as without a delegate."
          },
          "timeout_seconds": {
            "type": "integer",
            "minimum": 1,
            "maximum": 604800,
            "default": 86400,
            "description": "An unanswered decision fails the job with decision_timed_out after this long."
          }
        }
      },
      "PendingDecision": {
        "description": "What a job in waiting_for_decision waits for the client to decide. Never contains a secret.",
        "oneOf": [
          {
            "type": "object",
            "additionalProperties": false,
            "description": "A 401 or 407 challenge. Answer with use_credential, perform_default_handling, continue_without_credential, reject_protection_space or cancel.",
            "required": [
              "id",
              "kind",
              "protection_space",
              "failure_count",
              "proposed_credential"
            ],
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^[0-9a-f]{32}$",
                "description": "The decision's id: the same decision met again (after a restart, in the next attempt) has the same id."
              },
              "expires_at": {
                "$ref": "#/components/schemas/Timestamp",
                "description": "When an unanswered decision fails the job (decision_timed_out)."
              },
              "kind": {
                "const": "auth_challenge"
              },
              "protection_space": {
                "type": "object",
                "additionalProperties": false,
                "required": [
                  "host",
                  "port",
                  "scheme",
                  "method",
                  "proxy"
                ],
                "properties": {
                  "host": {
                    "type": "string"
                  },
                  "port": {
                    "type": "integer"
                  },
                  "scheme": {
                    "type": "string"
                  },
                  "realm": {
                    "type": "string"
                  },
                  "method": {
                    "type": "string",
                    "enum": [
                      "basic",
                      "digest",
                      "bearer"
                    ]
                  },
                  "proxy": {
                    "type": "boolean"
                  }
                }
              },
              "failure_count": {
                "type": "integer",
                "minimum": 0,
                "description": "How many credentials for this space already failed in this attempt."
              },
              "proposed_credential": {
                "oneOf": [
                  {
                    "type": "null"
                  },
                  {
                    "type": "object",
                    "additionalProperties": false,
                    "required": [
                      "username"
                    ],
                    "properties": {
                      "username": {
                        "type": "string"
                      }
                    }
                  }
                ],
                "description": "The credential the engine would use (its username only), or null."
              }
            }
          },
          {
            "type": "object",
            "additionalProperties": false,
            "description": "A redirect. Answer with follow, refuse or change (with url).",
            "required": [
              "id",
              "kind",
              "url",
              "response"
            ],
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^[0-9a-f]{32}$",
                "description": "The decision's id: the same decision met again (after a restart, in the next attempt) has the same id."
              },
              "expires_at": {
                "$ref": "#/components/schemas/Timestamp",
                "description": "When an unanswered decision fails the job (decision_timed_out)."
              },
              "kind": {
                "const": "redirect"
              },
              "url": {
                "type": "string",
                "description": "Where the redirect goes."
              },
              "response": {
                "type": "object",
                "additionalProperties": false,
                "required": [
                  "headers"
                ],
                "properties": {
                  "status": {
                    "type": "integer"
                  },
                  "headers": {
                    "$ref": "#/components/schemas/HeaderMap"
                  }
                }
              }
            }
          },
          {
            "type": "object",
            "additionalProperties": false,
            "description": "A certificate chain default evaluation refused. Answer with trust or reject.",
            "required": [
              "id",
              "kind",
              "host",
              "port",
              "certificates",
              "pins"
            ],
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^[0-9a-f]{32}$",
                "description": "The decision's id: the same decision met again (after a restart, in the next attempt) has the same id."
              },
              "expires_at": {
                "$ref": "#/components/schemas/Timestamp",
                "description": "When an unanswered decision fails the job (decision_timed_out)."
              },
              "kind": {
                "const": "server_trust"
              },
              "host": {
                "type": "string"
              },
              "port": {
                "type": "integer"
              },
              "certificates": {
                "type": "array",
                "items": {
                  "type": "string",
                  "contentEncoding": "base64"
                },
                "description": "The chain as the server sent it, leaf first, DER in base64."
              },
              "pins": {
                "type": "array",
                "items": {
                  "type": "string",
                  "pattern": "^sha256//"
                },
                "description": "The SHA-256 public-key pin of each certificate, in the same order."
              },
              "default_evaluation_failure": {
                "type": "string",
                "description": "Why default evaluation refused the chain."
              }
            }
          }
        ]
      },
      "DecisionAnswer": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "disposition"
        ],
        "properties": {
          "decision_id": {
            "type": "string",
            "description": "The decision.id answered; when the job now waits for another decision the answer is refused (409 decision_changed)."
          },
          "disposition": {
            "type": "string",
            "enum": [
              "use_credential",
              "perform_default_handling",
              "continue_without_credential",
              "reject_protection_space",
              "cancel",
              "follow",
              "refuse",
              "change",
              "trust",
              "reject"
            ],
            "description": "Must fit the pending decision's kind (else 422 decision_answer_invalid)."
          },
          "credential": {
            "description": "use_credential only: inline (stored sealed with the vault key, never shown) or a vault credential's id.",
            "oneOf": [
              {
                "type": "object",
                "additionalProperties": false,
                "required": [
                  "username",
                  "password"
                ],
                "properties": {
                  "username": {
                    "type": "string"
                  },
                  "password": {
                    "type": "string"
                  }
                }
              },
              {
                "type": "object",
                "additionalProperties": false,
                "required": [
                  "id"
                ],
                "properties": {
                  "id": {
                    "type": "string",
                    "format": "uuid"
                  }
                }
              }
            ]
          },
          "url": {
            "type": "string",
            "description": "change only: the http or https URL to go to instead."
          }
        }
      },
      "JobContent": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "href",
          "size"
        ],
        "description": "Where a succeeded job's content is. Only in answers to `POST /v1/jobs`: when the job ended while the request waited (`Prefer: wait`), or when an `Idempotency-Key` replay names a job that has succeeded.",
        "properties": {
          "href": {
            "type": "string",
            "description": "`/v1/jobs/{id}/content`."
          },
          "size": {
            "type": "integer",
            "minimum": 0
          },
          "content_type": {
            "type": "string"
          },
          "base64": {
            "type": "string",
            "description": "The body itself, for a `data` job whose body is at most 65,536 bytes.",
            "pattern": "^[A-Za-z0-9+/]*={0,2}$"
          }
        }
      },
      "JobAttempt": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "attempt",
          "started_at",
          "bytes"
        ],
        "properties": {
          "attempt": {
            "type": "integer",
            "minimum": 1
          },
          "started_at": {
            "type": "string",
            "format": "date-time"
          },
          "finished_at": {
            "type": "string",
            "format": "date-time",
            "description": "Absent while the attempt runs."
          },
          "outcome": {
            "type": "string",
            "enum": [
              "succeeded",
              "failed",
              "retrying",
              "paused",
              "cancelled",
              "interrupted"
            ],
            "description": "Absent while it runs; interrupted: its worker lost the lease (died or stalled)."
          },
          "error_code": {
            "type": "string"
          },
          "http_status": {
            "type": "integer",
            "minimum": 100,
            "maximum": 999
          },
          "bytes": {
            "type": "integer",
            "minimum": 0,
            "description": "Bytes the attempt received."
          }
        }
      },
      "JobAttemptList": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "attempts"
        ],
        "properties": {
          "attempts": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/JobAttempt"
            }
          }
        }
      },
      "Overview": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "jobs_by_state",
          "last_hour",
          "bytes_last_hour",
          "webhook_deliveries",
          "tenants"
        ],
        "properties": {
          "jobs_by_state": {
            "type": "object",
            "description": "Every job state, with the number of jobs (all tenants) in it.",
            "additionalProperties": {
              "type": "integer",
              "minimum": 0
            }
          },
          "last_hour": {
            "type": "array",
            "description": "Sixty minutes, oldest first, the current one last.",
            "items": {
              "type": "object",
              "additionalProperties": false,
              "required": [
                "start",
                "bytes",
                "succeeded"
              ],
              "properties": {
                "start": {
                  "type": "string",
                  "format": "date-time"
                },
                "bytes": {
                  "type": "integer",
                  "minimum": 0,
                  "description": "Bytes received by the attempts that ended in this minute."
                },
                "succeeded": {
                  "type": "integer",
                  "minimum": 0,
                  "description": "Jobs that succeeded in this minute."
                }
              }
            }
          },
          "bytes_last_hour": {
            "type": "integer",
            "minimum": 0
          },
          "oldest_queued_job": {
            "type": "object",
            "description": "Absent when nothing is queued.",
            "additionalProperties": false,
            "required": [
              "id",
              "tenant",
              "created_at"
            ],
            "properties": {
              "id": {
                "type": "string",
                "format": "uuid"
              },
              "tenant": {
                "type": "string",
                "format": "uuid"
              },
              "created_at": {
                "type": "string",
                "format": "date-time"
              }
            }
          },
          "webhook_deliveries": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "failed",
              "failed_last_hour"
            ],
            "properties": {
              "failed": {
                "type": "integer",
                "minimum": 0,
                "description": "Deliveries that used up their retry schedule."
              },
              "failed_last_hour": {
                "type": "integer",
                "minimum": 0,
                "description": "Those of them made in the last hour."
              }
            }
          },
          "tenants": {
            "type": "array",
            "description": "Each tenant's use, oldest tenant first; its limits are in GET /v1/admin/tenants.",
            "items": {
              "type": "object",
              "additionalProperties": false,
              "required": [
                "tenant",
                "running_jobs",
                "queued_jobs",
                "stored_bytes"
              ],
              "properties": {
                "tenant": {
                  "type": "string",
                  "format": "uuid"
                },
                "running_jobs": {
                  "type": "integer",
                  "minimum": 0
                },
                "queued_jobs": {
                  "type": "integer",
                  "minimum": 0
                },
                "stored_bytes": {
                  "type": "integer",
                  "minimum": 0,
                  "description": "Blobs and succeeded jobs' content still kept: what the storage quota counts."
                }
              }
            }
          }
        }
      },
      "BlobPage": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "blobs"
        ],
        "properties": {
          "blobs": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Blob"
            }
          },
          "next_cursor": {
            "type": "string",
            "description": "Absent on the last page."
          }
        }
      }
    }
  }
}
"""#
}
