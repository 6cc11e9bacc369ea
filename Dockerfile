# coursebot: one image for every adapter. `docker compose up` runs the Telegram and Discord
# bots against Qdrant, Redis, PostgreSQL and (optionally) Ollama; see docker-compose.yml.
FROM python:3.11-slim-bookworm AS build
WORKDIR /src
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/coursebot
COPY pyproject.toml README.md ./
COPY bot bot
COPY core core
COPY ingestion ingestion
COPY config config
RUN /opt/coursebot/bin/pip install .

FROM python:3.11-slim-bookworm
# Optional system tools, off by default so the image stays small: TeX for
# COURSEBOT_LESSON_ENGINE=pdflatex (`--build-arg WITH_TEX=1`), Tesseract with English,
# Vietnamese and Italian data for scanned PDFs (`--build-arg WITH_OCR=1`), LibreOffice
# Impress to picture slides (`--build-arg WITH_SLIDES=1`, about 200 MB).
ARG WITH_TEX=0
ARG WITH_OCR=0
ARG WITH_SLIDES=0
# Nothing in the image needs a hub at run time: the embedding model ships in the package.
ENV PATH=/opt/coursebot/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    COURSEBOT_DATA_DIR=/var/lib/coursebot \
    COURSEBOT_LOG_FORMAT=json
# Versions pinned to Debian 12 (bookworm), the base image's release.
# TeX: only what the Jinja2 + LaTeX template of core/lessons/latex_engine.py loads.
# latex-base: geometry, graphicx, amsmath, helvet (psnfss); texlive-base under it: amssymb;
# latex-recommended: cmap, xcolor; latex-extra: enumitem; fonts-recommended: the Helvetica
# clone helvet selects; lmodern: lmodern.sty with its T1 fonts.
RUN if [ "$WITH_TEX" = 1 ]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends \
            texlive-latex-base=2022.20230122-3 texlive-latex-recommended=2022.20230122-3 \
            texlive-latex-extra=2022.20230122-4 texlive-fonts-recommended=2022.20230122-3 \
            lmodern=2.005-1 \
        && rm -rf /var/lib/apt/lists/*; \
    fi
RUN if [ "$WITH_OCR" = 1 ]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends \
            tesseract-ocr=5.3.0-2 tesseract-ocr-eng=1:4.1.0-2 tesseract-ocr-vie=1:4.1.0-2 \
            tesseract-ocr-ita=1:4.1.0-2 \
        && rm -rf /var/lib/apt/lists/*; \
    fi
RUN if [ "$WITH_SLIDES" = 1 ]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends \
            libreoffice-impress=4:7.4.7-1+deb12u14 \
        && rm -rf /var/lib/apt/lists/*; \
    fi
# A numeric user, so a host or an orchestrator enforcing non-root can check it.
RUN useradd --system --uid 10001 --create-home --home-dir /var/lib/coursebot coursebot
COPY --from=build /opt/coursebot /opt/coursebot
USER 10001
WORKDIR /var/lib/coursebot
VOLUME ["/var/lib/coursebot"]
ENTRYPOINT ["coursebot"]
CMD ["--help"]
