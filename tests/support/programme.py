"""A small made-up programme for the advisor: two curricula with semesters, outcome lists
and a PLO-to-PO map, two combo documents, and syllabi with descriptions and CLO-to-PLO maps
of different widths (a syllabus may number PLOs as an older curriculum does)."""

from __future__ import annotations

# ruff: noqa: E501

CURRICULUM_NEW = """# Curriculum: K30

## General information

| CurriculumCode: | ZOO_K30 |
|----------------:|---------|
| DecisionNo MM/dd/yyyy: | 12/QĐ dated 12/31/2030 |

## Programme outcomes

| PO ID | PO Name | PO Description |
|-------|---------|----------------|
| 1 | ZOO_PO1 | Know animals and the science of their care in depth. |
| 2 | ZOO_PO2 | Speak English and a second foreign language at work. |

## Program learning outcomes

|   | PLO Name | PLO Description |
|---|----------|-----------------|
| 1 | PLO1 | Understand the biology of animals and their habitats in the wild. |
| 2 | PLO2 | Have a startup mindset and run a small veterinary business. |
| 3 | PLO3 | Communicate in English and simple Japanese with colleagues. |

## PLOs-POs maps

| PLO(s) | ZOO_PO1 | ZOO_PO2 |
|:------:|:-------:|:-------:|
| PLO1 | yes | |
| PLO2 | yes | |
| PLO3 | | yes |

## Curriculum details

| SubjectCode | Subject Name | Semester | NoCredit | PreRequisite |
|-------------|--------------|----------|----------|--------------|
| ORI100 | Orientation_Định hướng | 0 | 0 | |
| SWM*1 | Swimming 1_Bơi 1 | 0 | 2 | |
| SWM*2 | Swimming 2_Bơi 2 | 1 | 2 | |
| BIO101 | Animal Biology_Sinh học động vật | 1 | 3 | |
| MAT101 | Counting Animals_Toán đếm động vật | 1 | 3 | None |
| BIO201 | Animal Anatomy_Giải phẫu động vật | 2 | 3 | BIO101 |
| CAR201 | Animal Care_Chăm sóc động vật | 2 | 3 | BIO101 |
| ZOO_COM*1 | Subject 1 of Combo_Học phần 1 | 3 | 3 | |
| VET301 | Veterinary Practice_Thực hành thú y | 3 | 4 | BIO201, CAR201 |
| VET401 | Advanced Veterinary Practice_Thú y nâng cao | 4 | 3 | VET301 |
| FAR401 | Farm Management_Quản lý trang trại | 4 | 3 | MAT101 |
"""

CURRICULUM_OLD = """# Curriculum: K28

## General information

| CurriculumCode: | ZOO_K28 |
|----------------:|---------|
| DecisionNo MM/dd/yyyy: | 7/QĐ dated 01/15/2029 |

## Program learning outcomes

|   | PLO Name | PLO Description |
|---|----------|-----------------|
| 1 | PLO1 | Know the basics of biology. |
| 2 | PLO2 | Use English and Japanese in simple conversations. |
| 3 | PLO3 | Care for farm animals. |
| 4 | PLO4 | Build products for animal welfare. |

## Curriculum details

| SubjectCode | Subject Name | Semester | NoCredit | PreRequisite |
|-------------|--------------|----------|----------|--------------|
| BIO101 | Animal Biology_Sinh học động vật | 1 | 3 | |
| OLD101 | Study Skills_Kỹ năng học tập | 1 | 3 | |
| VET301 | Veterinary Practice_Thực hành thú y | 4 | 4 | BIO201, CAR201 |
"""

COMBO_1 = """# Pathway: ZOO_COM_1

## General information

| Key         | Value              |
|-------------|--------------------|
| Description | Subject 1 of Combo |
| Semester    | 3                  |

## ZOO_COM1: Topic on Marine Life

| Subject Code | Syllabus Name | Note |
|--------------|---------------|------|
| MAR301 | Marine Mammals | |
| AQU301 | Aquarium Keeping | |

## ZOO_COM2: Topic on Wildlife (Available: K28 - K29)

| Subject Code | Syllabus Name | Note |
|--------------|---------------|------|
| BRD301 | Bird Watching | |
"""

SYLLABUS_MAR301 = """# Syllabus: MAR301

## General information

| Subject Code: | MAR301 | |
|--------------:|--------|--|
| Syllabus English: | Marine Mammals | |
| NoCredit: | 3 | |
| Pre-Requisite: | BIO101 | |
| Description: | Whales and dolphins: their anatomy.</br>A field trip studies dolphin sonar and whale songs at sea. | |

## Assignments and assessments

| Category | Type | Part | Weight | Completion Criteria | Duration |
|----------|------|------|--------|---------------------|----------|
| Field report | on-going | 2 | 20.0% | >0 | 45' |
| Progress test | on-going | 1 | 30.0% | >0 | 30' |
| Final exam | Final exam | 1 | 50.0% | 4 | 60' |

## CLOs-PLOs maps

| CLO | PLO1 | PLO2 | PLO3 | PLO4 |
|:---:|:----:|:----:|:----:|:----:|
| CLO1 | yes | | | |
| CLO2 | yes | | | yes |
"""

SYLLABUS_BRD301 = """# Syllabus: BRD301

## General information

| Subject Code: | BRD301 | |
|--------------:|--------|--|
| Syllabus English: | Bird Watching | |
| NoCredit: | 3 | |
| Pre-Requisite: | | |
| Description: | Identify birds by their songs; migration routes of wild birds. | |

## Assignments and assessments

| Category | Type | Part | Weight | Completion Criteria | Duration |
|----------|------|------|--------|---------------------|----------|
| Song quiz | on-going | 1 | 60.0% | >0 | 20' |
| Final exam | Final exam | 1 | 40.0% | 4 | 60' |

## CLOs-PLOs maps

| CLO | PLO1 | PLO2 | PLO3 |
|:---:|:----:|:----:|:----:|
| CLO1 | | yes | |
| CLO2 | | | yes |
"""

SYLLABUS_OLD101 = """# Syllabus: OLD101

## General information

| Subject Code: | OLD101 | |
|--------------:|--------|--|
| Syllabus English: | Study Skills | |
| NoCredit: | 3 | |
| Description: | Reading, note taking and planning one's study week, online. | |

## Assignments and assessments

| Category | Type | Part | Weight | Completion Criteria | Duration |
|----------|------|------|--------|---------------------|----------|
| Final exam | Final exam | 1 | 100.0% | 4 | 60' |
"""

SYLLABUS_MAT101 = """# Syllabus: MAT101

## General information

| Subject Code: | MAT101 | |
|--------------:|--------|--|
| Syllabus English: | Counting Animals | |
| NoCredit: | 3 | |
| Description: | Estimating herd sizes from samples and counts in the field. | |

## Assignments and assessments

| Category | Type | Part | Weight | Completion Criteria | Duration |
|----------|------|------|--------|---------------------|----------|
| Field count | on-going | 3 | 45.0% | >0 | 90' |
| Final exam | Final exam | 1 | 55.0% | 4 | 60' |
"""

PROGRAMME = {
    "Curriculum_k30.md": CURRICULUM_NEW,
    "Curriculum_k28.md": CURRICULUM_OLD,
    "ZOO_COM_1.md": COMBO_1,
    "MAR301.md": SYLLABUS_MAR301,
    "BRD301.md": SYLLABUS_BRD301,
    "OLD101.md": SYLLABUS_OLD101,
    "MAT101.md": SYLLABUS_MAT101,
}
