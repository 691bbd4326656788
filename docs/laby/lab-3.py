# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.7
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Laboratorium: mechanizm uwagi w NumPy
#
# To laboratorium jest notatnikiem Jupytera, który strona uruchamia przy budowaniu: wszystkie
# wyniki poniżej — macierze, liczby i wykresy — pochodzą z wykonanego kodu. Notatnik możesz
# pobrać jako plik `.ipynb` i uruchomić u siebie; wystarczy Python z bibliotekami NumPy
# i matplotlib.
#
# To trzeci krok trasy serwisu: zakłada, że znasz rachunek z artykułu
# [Mechanizm uwagi krok po kroku](../../krok-po-kroku/) i że bawiłeś się
# [eksploratorem uwagi](../../llm/anatomia/#uwaga). Pierwowzorem jest trzecie laboratorium
# kursu „Modele językowe (LLM Basics)”, napisane w PyTorch — stąd „3” w adresie strony. Innych
# laboratoriów tamtego kursu tu nie ma i nie są potrzebne. Te same operacje wykonujemy w NumPy,
# na małych macierzach, a oryginalny kod PyTorch pokazujemy w rozwijanych blokach jako
# odniesienie — nie jest on uruchamiany.
#
# ## Czego nauczysz się w tej części?
#
# - odróżniać ID tokenu od przypisanego mu wektora embeddingu;
# - wyjaśniać, w jaki sposób model może brać pod uwagę pozycję tokenu;
# - opisywać, jaką rolę grają zapytania (Q), klucze (K) i wartości (V);
# - wyznaczać wymiary macierzy $QK^\top$;
# - obliczać wagi i wyjście *scaled dot-product attention*;
# - nakładać maskę przyczynową, tak aby żadna pozycja nie korzystała z późniejszych tokenów;
# - sprawdzać, czy każdy wiersz wag sumuje się do 1 z dokładnością numeryczną;
# - dzielić zapytania, klucze i wartości na kilka głów, liczyć uwagę w każdej z nich
#   i sklejać ich wyjścia z powrotem (uwaga wielogłowa);
# - wyjaśniać, dlaczego same wagi uwagi nie są pełnym wyjaśnieniem odpowiedzi modelu.
#
# Nie musisz jeszcze znać wszystkich sposobów kodowania pozycji ani szczegółów architektury
# konkretnych modeli. Informację o pozycji dodamy w najprostszy możliwy sposób, a wszystkie
# macierze będą na tyle małe, że każdą da się wypisać i sprawdzić ręcznie.
#
# ## Jak będziemy pracować?
#
# - **Krok 1** — ID tokenu, embedding i pozycja.
# - **Krok 2** — Q, K i V oraz ich wymiary.
# - **Krok 3** — obliczanie wag i wyjścia mechanizmu uwagi.
# - **Krok 4** — maska przyczynowa.
# - **Krok 5** — eksperyment z przeciekiem informacji z przyszłości.
# - **Krok 6** — kilka głów naraz: podział, maska, sklejenie i $W_O$.
# - **Krok 7** — rezultat pracy.
#
# ## Zanim zaczniesz
#
# Wymyśl trzy tokeny i nadaj każdemu prosty wektor o dwóch współrzędnych. Policz na kartce
# iloczyn skalarny dwóch z tych wektorów. Dokładnie tę operację wykonamy później dla każdej
# pary zapytanie–klucz.
#
# Przy każdym działaniu zapisuj kształty: $X$: `[n, d_model]`, $Q, K$: `[n, d_k]`,
# $V$: `[n, d_v]`, $QK^\top$: `[n, n]`. Gdy wymiary są wypisane jawnie, większość typowych
# nieporozumień znika sama.
#
# Pierwsza komórka importuje biblioteki i ustawia sposób wypisywania liczb; druga zapisuje
# dane wejściowe laboratorium: rozmiary, ziarna generatora i małe macierze. Wszystko dalej
# jest liczone z nich.

# %%
import numpy as np
import matplotlib.pyplot as plt

np.set_printoptions(precision=3, suppress=True)   # najwyżej trzy cyfry po przecinku (końcowe zera NumPy pomija)

# %%
# Dane wejściowe laboratorium: rozmiary, ziarna generatora i małe macierze.
SEED_EMBEDDINGS = 7            # ziarno tabel E i E_pos (krok 1)
VOCAB_SIZE = 12                # liczba ID w słowniku
D_MODEL = 4                    # długość wektora embeddingu
INPUT_IDS = np.array([2, 5, 2, 9])   # sekwencja: ID 2 występuje dwa razy
MAX_SEQ_LEN = 32               # liczba wierszy tabeli pozycji

SEED_PROJECTIONS = 11          # ziarno macierzy W_Q, W_K, W_V (krok 2)
D_K, D_V = 2, 3                # długość zapytań i kluczy, długość wartości

TOY_X = np.array([             # mała macierz z kroku 3: Q = K = V = TOY_X
    [1.0, 0.0],
    [0.0, 1.0],
    [1.0, 1.0],
])
EXERCISE_4_THIRD_ROW = np.array([-1.0, -1.0])   # nowy trzeci wektor w ćwiczeniu 4
LONG_SEQ_LEN = 4096            # długa sekwencja: rozmiar macierzy n × n
FLOAT32_BYTES = 4              # bajty na jedną liczbę float32

LEAK_A = TOY_X                 # przeciek (krok 5): ten sam pierwszy wektor,
LEAK_B = np.array([            # inne późniejsze
    [1.0, 0.0],
    [8.0, 8.0],
    [-7.0, 2.0],
])
WEAK_VALUE_SCALE = 0.05        # ile razy skracamy wektor wartości (wagi a wkłady)

SEED_HEADS = 3                 # ziarno macierzy uwagi wielogłowej (krok 6)
N_HEADS = 2                    # liczba głów

# %% tags=["remove_cell"]
# %config InlineBackend.figure_formats = ["svg"]
plt.rcParams["svg.fonttype"] = "none"   # wykresy jako SVG, z napisami jako tekstem
plt.rcParams["svg.hashsalt"] = "lab-3"  # przy każdym uruchomieniu ten sam plik SVG
plt.rcParams["font.size"] = 11          # czytelne napisy na stronie

# %% [markdown]
# ## Krok 1. ID tokenu nie niesie użytecznej geometrii
#
# Identyfikator tokenu to po prostu numer wiersza w słowniku. Token o ID 900 nie jest
# „dziewięć razy większy” od tokenu o ID 100 i nie leży od niego „dalej” w żadnym sensownym
# znaczeniu. Warstwa embeddingu działa jak tablica: dla każdego ID odczytuje jeden wiersz
# macierzy $E$. W prawdziwym modelu wartości tej macierzy są parametrami uczonymi podczas
# treningu.
#
# Jedna sekwencja długości $n$ daje macierz $X \in \mathbb{R}^{n \times d_\text{model}}$:
# każdy jej wiersz to wektor przypisany jednemu ID. Liczba $d_\text{model}$ mówi, ile
# współrzędnych ma wektor reprezentujący pojedynczy token — na przykład przy
# $d_\text{model} = 4$ embedding jest elementem $\mathbb{R}^4$. Kolumny macierzy to składowe
# wektorów, ale żadna z nich nie ma z góry nadanego znaczenia: nie zakładamy, że jedna
# kolumna koduje na przykład emocje, a inna liczbę mnogą.
#
# W kodzie zwykle dochodzi jeszcze wymiar porcji (ang. *batch*) $B$, czyli liczba sekwencji przetwarzanych
# razem; wynik ma wtedy kształt `[B, n, d_model]`. U nas $B = 1$. We wzorach dalej wymiar
# porcji pomijamy, żeby skupić się na tym, co dzieje się wewnątrz jednej sekwencji.
#
# Tabelę $E$ wypełniamy liczbami z rozkładu normalnego $\mathcal{N}(0, 1)$ — tak samo
# inicjalizuje ją `nn.Embedding` w PyTorch. Generator NumPy z tym samym ziarnem co w oryginale
# losuje jednak inne liczby niż PyTorch, więc same wartości różnią się od tamtego przebiegu.

# %%
rng = np.random.default_rng(SEED_EMBEDDINGS)

E = rng.standard_normal((VOCAB_SIZE, D_MODEL))  # E: [V, d_model]
input_ids = INPUT_IDS[None, :]                  # [B=1, n]
x = E[input_ids]                # [B, n, d_model]: wiersz E dla każdego ID

first_id = input_ids[0, 0]
print("E:", E.shape)
print("input_ids:", input_ids.shape, input_ids)
print("x:", x.shape)
print("x[0] - jedna sekwencja:", x[0].shape)
print(f"x[0, 0] to E[{first_id}]:", np.array_equal(x[0, 0], E[first_id]))

assert input_ids[0, 2] == first_id      # pierwsze i trzecie ID są równe
print("powtórzone ID daje ten sam wektor:",
      np.array_equal(x[0, 0], x[0, 2]))

# %% [markdown]
# <details class="example">
# <summary>Ten sam krok w PyTorch (kod oryginalnego laboratorium; odniesienie, nie jest uruchamiany)</summary>
#
# ```python
# import torch
# from torch import nn
#
# torch.manual_seed(7)
# vocab_size = 12
# d_model = 4
#
# embedding = nn.Embedding(vocab_size, d_model)   # E: [12, 4]
# input_ids = torch.tensor([[2, 5, 2, 9]])       # [B=1, n=4]
# x = embedding(input_ids)                       # [1, 4, 4]
#
# print("E:", embedding.weight.shape)
# print("input_ids:", input_ids.shape)
# print("x:", x.shape)
# print("x[0] - jedna sekwencja:", x[0].shape)
# print("x[0, 0] to E[2]:", torch.equal(x[0, 0], embedding.weight[2]))
# print("powtórzone ID daje ten sam wektor:",
#       torch.equal(x[0, 0], x[0, 2]))
# ```
#
# </details>
#
# Wartości $E$ są tu losowe, bo warstwy embeddingu nie trenujemy. Kod pokazuje więc samo
# wybieranie wierszy macierzy, a nie wyuczone podobieństwo między tokenami. Oba wystąpienia
# tego samego ID dostają na tym etapie identyczny wektor; ich reprezentacje mogą się rozejść
# dopiero później, gdy model uwzględni pozycję i kontekst.
#
# Embedding tokenu to co innego niż wektor reprezentujący cały fragment tekstu. Tutaj każde ID
# w sekwencji dostaje własny wektor; jedną reprezentację całego fragmentu trzeba by dopiero
# z tych wektorów zbudować, a w tym laboratorium się tym nie zajmujemy.
#
# ### Skąd model bierze informację o pozycji?
#
# Tabela embeddingów tokenów wybiera wektor wyłącznie na podstawie ID, więc dwa wystąpienia
# tego samego ID dostają na tym etapie ten sam wektor. Żeby odróżnić ich miejsca w sekwencji,
# użyjemy drugiej tabeli — indeksowanej nie numerem tokenu, lecz numerem pozycji.
#
# Tabela pozycji ma kształt `[max_seq_len, d_model]`: jeden wektor dla pozycji 0, kolejny dla
# pozycji 1 i tak dalej. Pierwszy wymiar mówi, ile pozycji da się w ten sposób obsłużyć
# bezpośrednio, drugi — jak długi jest każdy wektor pozycji. To inny rozmiar niż w tabeli
# embeddingów tokenów, która ma po jednym wierszu na każde ID ze słownika.
#
# Jeśli wejście ma pięć tokenów, bierzemy z tabeli wiersze dla pozycji 0, 1, 2, 3 i 4.
# Powstaje macierz $P$ o kształcie `[5, d_model]`, którą dodajemy do macierzy embeddingów
# tokenów $X$ o tym samym kształcie. Pozostałe wiersze nadal należą do tabeli — po prostu ta
# sekwencja ich nie potrzebuje.
#
# Oznaczmy przez $E_\text{pos}$ całą tabelę pozycji, a przez $P$ tylko wiersze wybrane dla
# bieżącej sekwencji. W naszym wejściu pierwsze i trzecie ID są takie same: pierwsze
# wystąpienie dostanie wektor tokenu powiększony o wektor pozycji 0, drugie — ten sam wektor
# tokenu powiększony o wektor pozycji 2.

# %%
# Korzystamy z rng, input_ids i x z poprzedniej komórki (E_pos losuje ten sam generator).
E_pos = rng.standard_normal((MAX_SEQ_LEN, D_MODEL))  # [max_seq_len, d_model]

n = input_ids.shape[1]                   # długość sekwencji
positions = np.arange(n)[None, :]        # [1, n]: pozycje 0, 1, ..., n-1
position_vectors = E_pos[positions]      # P: [1, n, d_model]
x_with_position = x + position_vectors   # H = X + P: [1, n, d_model]

print("cała tabela pozycji:", E_pos.shape)
print("wybrane pozycje:", positions)
print("P dla tej sekwencji:", position_vectors.shape)
print("X:", x.shape)
print("H = X + P:", x_with_position.shape)

print("przed dodaniem pozycji wektory powtórzonego ID są identyczne:",
      np.array_equal(x[0, 0], x[0, 2]))
print("po dodaniu pozycji reprezentacje się różnią:",
      not np.allclose(x_with_position[0, 0], x_with_position[0, 2]))

# %% [markdown]
# <details class="example">
# <summary>Ten sam krok w PyTorch (odniesienie, nie jest uruchamiany)</summary>
#
# ```python
# # Korzystamy z input_ids, x, nn i d_model z poprzedniego fragmentu.
# max_seq_len = 32
# position_embedding = nn.Embedding(max_seq_len, d_model)
#
# n = input_ids.shape[1]                         # w przykładzie n = 4
# positions = torch.arange(n).unsqueeze(0)      # [[0, 1, 2, 3]]
# position_vectors = position_embedding(positions)
# x_with_position = x + position_vectors
#
# print("cała tabela pozycji:", position_embedding.weight.shape)  # [32, 4]
# print("wybrane pozycje:", positions)
# print("P dla tej sekwencji:", position_vectors.shape)           # [1, 4, 4]
# print("X:", x.shape)                                             # [1, 4, 4]
# print("H = X + P:", x_with_position.shape)                       # [1, 4, 4]
#
# print("przed dodaniem pozycji wektory ID 2 są identyczne:",
#       torch.equal(x[0, 0], x[0, 2]))
# print("po dodaniu pozycji reprezentacje się różnią:",
#       not torch.allclose(x_with_position[0, 0], x_with_position[0, 2]))
# ```
#
# </details>
#
# Dodatkowa jedynka na początku kształtów $X$, $P$ i $H$ to wymiar porcji. Tabela `E_pos` ma
# nadal wszystkie swoje wiersze, choć w tym wywołaniu korzystamy tylko z pierwszych $n$.
# U nas jej wartości są losowe i nikt ich nie trenuje; gdy taka tabela jest uczoną częścią
# modelu, jej wartości zmieniają się podczas treningu.
#
# W tej prostej implementacji `max_seq_len` ogranicza liczbę pozycji, dla których w ogóle
# możemy odczytać wektor z tabeli. Nie każdy model ma jednak taką tabelę: informację o pozycji
# można też dodać stałym kodowaniem sinusoidalnym albo mechanizmem rotacyjnym (RoPE). Czymś
# zupełnie innym jest maska przyczynowa — ona nie koduje pozycji, tylko ustala, z których
# wcześniejszych pozycji wolno korzystać przy obliczaniu uwagi (ang. *attention*).
#
# ## Krok 2. Q, K i V: trzy projekcje tej samej reprezentacji
#
# Po dodaniu pozycji mamy macierz $H$ z jednym wektorem na każdy token sekwencji. Jeśli ten
# sam token występuje dwa razy, zajmuje dwie różne pozycje, więc każde wystąpienie ma własny
# wiersz. Z każdego wiersza liczymy trzy projekcje liniowe, za pomocą macierzy $W_Q$, $W_K$
# i $W_V$:
#
# $$\begin{aligned} Q &= H W_Q, \\ K &= H W_K, \\ V &= H W_V. \end{aligned}$$
#
# Macierze $W_Q$, $W_K$ i $W_V$ są parametrami modelu, uczonymi podczas treningu. Natomiast
# $Q$, $K$ i $V$ to wyniki obliczeń dla bieżącej sekwencji: inne wejście $H$ daje inne $Q$,
# $K$ i $V$.
#
# Zapytania (*query*, $Q$) porównujemy z kluczami (*key*, $K$): dla pozycji $i$ liczymy, jak
# bardzo jej zapytanie $q_i$ pasuje do klucza $k_j$ każdej pozycji $j$. Wartości (*value*,
# $V$) to wektory, które na końcu połączymy w wyjście. Waga przypisana pozycji $j$ mówi, przez
# jaki współczynnik pomnożymy jej wektor $v_j$ — a to, ile ten składnik naprawdę wniesie,
# zależy też od samego wektora.
#
# Można więc myśleć o $Q$ i $K$ jako o części, która ustala, *skąd* pobrać więcej informacji,
# a o $V$ jako o części, która określa, *jaka* informacja zostanie przekazana. To pomocna
# intuicja, a nie dosłowne pytania, etykiety czy osobne bazy danych. W następnym kroku
# zobaczymy, jak oceny dopasowania zamieniają się w wagi.
#
# Wzory pomijają ewentualne wyrazy wolne (*bias*) projekcji. Zapytania i klucze muszą mieć tę
# samą długość $d_k$, bo inaczej nie dałoby się policzyć ich iloczynów skalarnych. Wektory
# wartości mogą mieć inną długość, $d_v$.
#
# | Obiekt | Kształt dla jednej sekwencji | Rola |
# | --- | --- | --- |
# | $X$ | $n \times d_\text{model}$ | embeddingi tokenów |
# | $P$ | $n \times d_\text{model}$ | wektory pozycji wybrane dla sekwencji |
# | $H = X + P$ | $n \times d_\text{model}$ | wejście do trzech projekcji |
# | $W_Q$, $W_K$ | $d_\text{model} \times d_k$ | parametry projekcji zapytań i kluczy |
# | $W_V$ | $d_\text{model} \times d_v$ | parametry projekcji wartości |
# | $Q$, $K$ | $n \times d_k$ | zapytania i klucze obliczone dla bieżącej sekwencji |
# | $V$ | $n \times d_v$ | wartości obliczone dla bieżącej sekwencji |
# | $QK^\top$ | $n \times n$ | surowe oceny dopasowania wszystkich par pozycji |
#
# ### Sprawdź trzy projekcje w kodzie
#
# Bierzemy `x_with_position` z poprzedniej komórki. Ma kształt `[1, n, d_model]`: jedną
# sekwencję, $n$ pozycji i $d_\text{model}$ składowych. Wybieramy tę jedyną sekwencję i
# pracujemy na macierzy $H$ o kształcie `[n, d_model]`. Macierze projekcji są losowe — niczego
# tu nie trenujemy.

# %%
h = x_with_position[0]                    # H: [n, d_model]
n, d_model = h.shape
d_k, d_v = D_K, D_V

rng_proj = np.random.default_rng(SEED_PROJECTIONS)
w_q = rng_proj.standard_normal((d_model, d_k))   # W_Q: [d_model, d_k]
w_k = rng_proj.standard_normal((d_model, d_k))   # W_K: [d_model, d_k]
w_v = rng_proj.standard_normal((d_model, d_v))   # W_V: [d_model, d_v]

q = h @ w_q                               # Q: [n, d_k]
k = h @ w_k                               # K: [n, d_k]
v = h @ w_v                               # V: [n, d_v]

print("H:", h.shape)
print("W_Q, W_K, W_V:", w_q.shape, w_k.shape, w_v.shape)
print("Q, K, V:", q.shape, k.shape, v.shape)
print("QKᵀ:", (q @ k.T).shape)

print("Pierwsza pozycja:")
print("q[0]:", q[0])
print("k[0]:", k[0])
print("v[0]:", v[0])

# %% [markdown]
# <details class="example">
# <summary>Ten sam krok w PyTorch (odniesienie, nie jest uruchamiany)</summary>
#
# ```python
# import torch
#
# h = x_with_position[0]                 # [n=4, d_model=4]
# n, d_model = h.shape
# d_k, d_v = 2, 3
#
# torch.manual_seed(11)
# w_q = torch.randn(d_model, d_k)        # [4, 2]
# w_k = torch.randn(d_model, d_k)        # [4, 2]
# w_v = torch.randn(d_model, d_v)        # [4, 3]
#
# q = h @ w_q                            # [4, 2]
# k = h @ w_k                            # [4, 2]
# v = h @ w_v                            # [4, 3]
#
# print("H:", tuple(h.shape))
# print("W_Q, W_K, W_V:",
#       tuple(w_q.shape), tuple(w_k.shape), tuple(w_v.shape))
# print("Q, K, V:",
#       tuple(q.shape), tuple(k.shape), tuple(v.shape))
# print("QKᵀ:", tuple((q @ k.T).shape))
#
# print("Pierwsza pozycja:")
# print("q[0]:", q[0])
# print("k[0]:", k[0])
# print("v[0]:", v[0])
# ```
#
# </details>
#
# Zauważ, że dla tej samej pierwszej pozycji dostajemy trzy osobne wektory: `q[0]`, `k[0]`
# i `v[0]`. Wszystkie powstały z tego samego `h[0]`, ale każdy przez inną macierz projekcji.
# Dwa pierwsze mają długość $d_k$, trzeci — $d_v$. W kolejnym ćwiczeniu uprościmy dane do
# $Q = K = V = X$, żeby łatwo prześledzić samo obliczenie uwagi.
#
# W macierzy $QK^\top$ wiersz $i$ odpowiada pozycji tokenu, *dla którego* liczymy wyjście, a
# kolumna $j$ — pozycji tokenu, *z którego* można pobrać informację. Na tym etapie macierz
# zawiera surowe oceny dla wszystkich par $(i, j)$; dopiero maska przyczynowa zablokuje
# pozycje $j > i$. Spośród pozycji, które zostaną, nie wybieramy automatycznie jednej
# „najlepszej”: każda może wnieść część informacji do wyjścia.
#
# **Przykład.** Sekwencja ma cztery tokeny na pozycjach 0, 1, 2 i 3. Licząc wyjście dla tokenu
# na pozycji $i = 2$, model może uwzględnić tokeny z pozycji $j = 0, 1, 2$, ale nie z
# pozycji $j = 3$. Jeśli po masce i softmaksie wagi w tym wierszu wynoszą $a_{20}$, $a_{21}$
# i $a_{22}$ (są nieujemne i sumują się do 1), wyjściem jest ważona suma
# $a_{20} v_0 + a_{21} v_1 + a_{22} v_2$. Token z pozycji 3 ma w tym obliczeniu wagę zero.
# Dla naszych losowych $Q$, $K$ i $V$ te trzy wagi wyglądają tak (softmax i maskę omówimy
# dokładnie w krokach 3 i 4; tu liczymy je od razu, żeby zobaczyć liczby):

# %%
i = 2                                      # pozycja, dla której liczymy wyjście
s_2 = q[i] @ k[: i + 1].T / np.sqrt(d_k)   # oceny dla j = 0, 1, 2 (j = 3 pomijamy)
a_2 = np.exp(s_2 - s_2.max())
a_2 = a_2 / a_2.sum()                      # wagi a_20, a_21, a_22: suma 1

terms = " + ".join(f"{a:.2f}·v_{j}".replace(".", ",") for j, a in enumerate(a_2))
print(f"y_{i} = {terms}")
print("suma wag:", a_2.sum())

# %% [markdown]
#
# Tabela kształtów, jak wcześniej, pomija wymiar porcji. Dla porcji wielkości $B$
# otrzymalibyśmy $Q, K$: `[B, n, d_k]`, $V$: `[B, n, d_v]` i $QK^\top$: `[B, n, n]`. Opisujemy
# jedną głowę uwagi; przy wielu głowach każda ma własne macierze projekcji.
#
# ## Krok 3. Mechanizm uwagi oparty na skalowanym iloczynie skalarnym
#
# Mamy już $Q$, $K$ i $V$. Teraz dla każdej pozycji chcemy ustalić, w jakim stopniu
# uwzględnić informacje z pozostałych pozycji. Robi to mechanizm uwagi (ang. *attention*);
# omawiana tu wersja nazywa się *scaled dot-product attention*. Najpierw porównuje zapytania
# z kluczami za pomocą iloczynów skalarnych, potem łączy wektory wartości:
#
# $$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V.$$
#
# Wzór najłatwiej czytać jako trzy kolejne macierze: $S = QK^\top / \sqrt{d_k}$ zawiera oceny
# dopasowania, $A = \operatorname{softmax}(S)$ — wagi, a $Y = AV$ — wyjście.
#
# 1. **Porównanie.** Mnożymy $Q$ przez $K^\top$. Element $(i, j)$ iloczynu to iloczyn skalarny
#    zapytania $q_i$ i klucza $k_j$. Powstaje macierz `[n, n]`: jeden wiersz na każdą pozycję,
#    dla której liczymy wyjście, i jedna kolumna na każdą pozycję, z której można pobrać
#    informację.
# 2. **Skalowanie.** Każdą ocenę dzielimy przez tę samą liczbę $\sqrt{d_k}$, gdzie $d_k$ to
#    długość wektorów zapytań i kluczy. Kształt się nie zmienia: nadal `[n, n]`. Wiersze nie
#    muszą jeszcze sumować się do 1 — to wciąż oceny dopasowania, nie wagi.
# 3. **Wagi.** Do każdego wiersza ocen osobno stosujemy softmax. Dostajemy macierz $A$
#    o kształcie `[n, n]`; element $A[i, j]$ to waga pozycji $j$ przy obliczaniu wyjścia dla
#    pozycji $i$. Wagi w każdym wierszu są nieujemne i sumują się do 1.
# 4. **Wyjście.** Mnożymy $A$ (`[n, n]`) przez $V$ (`[n, d_v]`) i dostajemy $Y$ o kształcie
#    `[n, d_v]`: nowy wektor długości $d_v$ dla każdej pozycji w sekwencji.
#
# Co dokładnie oznacza ostatni krok? Dla ustalonej pozycji $i$ bierzemy wagi $A[i, 0], A[i, 1],
# \dots, A[i, n-1]$ i liczymy ważoną sumę wektorów $v_0, v_1, \dots, v_{n-1}$:
#
# $$y_i = \sum_{j=0}^{n-1} A[i, j]\, v_j .$$
#
# Wyjście $y_i$ ma $d_v$ składowych, a każdą z nich liczymy jako osobną sumę po pozycjach $j$, z tymi
# samymi wagami $A[i, j]$. W kroku 4 maska przyczynowa sprawi, że w wyjściu dla pozycji $i$
# zostaną tylko wartości z pozycji $j \le i$.
#
# ### Dlaczego dzielimy przez pierwiastek z wymiaru kluczy?
#
# Iloczyn skalarny to suma $d_k$ iloczynów składowych. Im większe $d_k$, tym większy bywa
# rozrzut takich sum. Duże różnice między ocenami sprawiają, że softmax daje wagi bardzo
# bliskie 0 albo 1, a to może utrudniać uczenie. Dzielenie przez $\sqrt{d_k}$ utrzymuje oceny
# w porównywalnej skali niezależnie od długości wektorów.
#
# <details class="info">
# <summary>Skąd bierze się pierwiastek?</summary>
#
# Przyjmijmy uproszczony model: składniki $q_m k_m$ sumowane w iloczynie skalarnym są
# niezależne, mają średnią 0 i wariancję 1. Wariancja sumy $d_k$ takich składników wynosi
# wtedy $d_k$, a jej odchylenie standardowe — $\sqrt{d_k}$:
#
# $$\begin{aligned} \operatorname{Var}(q \cdot k) &= \sum_{m=0}^{d_k-1} \operatorname{Var}(q_m k_m) = d_k, \\ \sigma(q \cdot k) &= \sqrt{d_k}. \end{aligned}$$
#
# Dlatego dzielimy przez pierwiastek, a nie przez samo $d_k$: po takim podzieleniu oceny mają
# odchylenie standardowe 1. To uzasadnienie skali użytej we wzorze, a nie gwarancja, że
# każde rzeczywiste zapytanie i klucz spełniają te założenia.
#
# </details>
#
# Jeśli znasz temperaturę softmaksu, skojarzenie jest trafne:
# $\operatorname{softmax}(z / T)$ i $\operatorname{softmax}(QK^\top / \sqrt{d_k})$ w podobny
# sposób zmieniają różnice między liczbami podawanymi do softmaksu. Tutaj odpowiednikiem $z$
# są oceny dopasowania pozycji, a $\sqrt{d_k}$ jest czynnikiem skali wynikającym z wymiaru
# kluczy. Nie jest to jednak temperatura losowania następnego tokenu: mechanizm uwagi liczy
# wagi deterministycznie.
#
# Macierze ocen i wag mają po $n \times n$ elementów, więc dwa razy dłuższa sekwencja oznacza
# cztery razy więcej elementów. Policzmy, ile pamięci zajmuje jedna taka macierz dla długiej
# sekwencji, zapisana w formacie float32:

# %%
n_long = LONG_SEQ_LEN
elements = n_long * n_long                  # jedna macierz [n, n]
size_bytes = elements * FLOAT32_BYTES       # float32: 4 bajty na liczbę

print(f"n = {n_long}:", f"{elements:,}".replace(",", " "), "elementów,",
      f"{size_bytes / 2**20:g} MiB w float32")
print("dwa razy dłuższa sekwencja:",
      (2 * n_long) ** 2 // elements, "razy więcej elementów")

# %% [markdown]
# Tyle zajmuje macierz w prostej implementacji, którą za chwilę napiszemy. Istnieją
# wydajniejsze sposoby obliczania dokładnie tego samego wyniku bez przechowywania całej
# macierzy wag naraz (na przykład algorytm FlashAttention, opisany we
# [wpisie o mechanizmie uwagi](../../posty/llm-mechanizm-uwagi/)).
#
# Wagi uwagi określają udział poszczególnych pozycji w łączeniu wektorów $V$. **Nie są**
# prawdopodobieństwami kolejnych tokenów ze słownika.
#
# ### Zbuduj mechanizm uwagi na małej macierzy
#
# W poprzednim ćwiczeniu zobaczyliśmy, jak powstają osobne projekcje $Q$, $K$ i $V$. Teraz
# zaczynamy nowy, niezależny przykład z trzema prostymi wektorami o dwóch współrzędnych
# (w komórce z danymi to macierz `TOY_X`) i przyjmujemy $Q = K = V$, żeby całe obliczenie dało się łatwo sprawdzić ręcznie. Wartości
# i wymiary są więc inne niż w ćwiczeniu z projekcjami. Softmax piszemy sami, w wersji
# odpornej na przepełnienie: odjęcie maksimum wiersza nie zmienia wyniku, a chroni `exp`
# przed zbyt dużymi argumentami.

# %%
def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax wzdłuż osi `axis`; wynik ma kształt `z`."""
    z = z - z.max(axis=axis, keepdims=True)  # ten sam wynik, bez przepełnień
    e = np.exp(z)                            # exp(-inf) = 0: pole zablokowane
    return e / e.sum(axis=axis, keepdims=True)


toy_x = np.array(TOY_X)                       # [n=3, d=2]
q = k = v = toy_x

raw_scores = q @ k.T                          # QKᵀ: [n, n]
scores = raw_scores / np.sqrt(q.shape[-1])    # S = QKᵀ / √d_k: [n, n]
weights = softmax(scores, axis=-1)            # A = softmax(S): [n, n]
result = weights @ v                          # Y = AV: [n, d]

print("toy_x (czyli Q, K i V):\n", toy_x)
print("oceny przed skalowaniem:\n", raw_scores)
print("oceny po skalowaniu:\n", scores)
print("wagi po softmax:\n", weights)
print("suma każdego wiersza wag:", weights.sum(axis=-1))
print("wyjście Y = AV:\n", result)

# %% [markdown]
# <details class="example">
# <summary>Ten sam krok w PyTorch (odniesienie, nie jest uruchamiany)</summary>
#
# ```python
# import math
# import torch
#
# toy_x = torch.tensor([
#     [1.0, 0.0],
#     [0.0, 1.0],
#     [1.0, 1.0],
# ])                                            # [n=3, d=2]
#
# q = k = v = toy_x
#
# raw_scores = q @ k.T                         # [3, 3]
# scores = raw_scores / math.sqrt(q.shape[-1]) # [3, 3]
# weights = torch.softmax(scores, dim=-1)      # [3, 3]
# result = weights @ v                         # [3, 2]
#
# torch.set_printoptions(precision=3, sci_mode=False)
# print("oceny przed skalowaniem:\n", raw_scores)
# print("oceny po skalowaniu:\n", scores)
# print("wagi po softmax:\n", weights)
# print("suma każdego wiersza wag:", weights.sum(dim=-1))
# print("wyjście Y = AV:\n", result)
# ```
#
# </details>
#
# Jak czytać wyjście? Wiersz `weights[1]` zawiera trzy wagi użyte do obliczenia `result[1]`.
# Pierwsza mnoży cały wektor `v[0]`, druga cały wektor `v[1]`, a trzecia cały wektor `v[2]`.
# Wektory $V$ mają tu po dwie składowe, więc `result[1]` również ma dwie. W tej wersji nie ma
# jeszcze maski przyczynowej, dlatego pozycja 1 korzysta także z późniejszej pozycji 2.
#
# ### Ćwiczenia
#
# 1. Policz ręcznie wartość `scores[0, 2]`. Nie zapomnij o podzieleniu iloczynu skalarnego
#    przez $\sqrt{d_k}$.
# 2. Odczytaj `weights[1]` i zapisz `result[1]` jako sumę trzech ważonych wektorów $V$.
# 3. Porównaj `weights[0]` z wynikiem `softmax(raw_scores[0])`. Czy skalowanie zmieniło sumę
#    wag, czy ich proporcje?
# 4. Zmień trzeci wektor na $[-1, -1]$ (w komórce z danymi to `EXERCISE_4_THIRD_ROW`)
#    i powtórz obliczenia. Jak zmieniły się wagi przypisane trzeciej pozycji w dwóch
#    pierwszych wierszach?
# 5. Sprawdź asercją, że każdy wiersz macierzy `weights` sumuje się do 1.

# %% [markdown]
# Rozwiązania są schowane w rozwijanych blokach — zajrzyj do nich dopiero po własnej próbie.

# %% [markdown] tags=["solution"] exercise=1
# Dla `scores[0, 2]` porównujemy zapytanie `q[0]` z kluczem `k[2]`: mnożymy ich współrzędne
# parami, sumujemy i dzielimy przez $\sqrt{d_k}$. Ta ocena nadal nie jest wagą i nie musi leżeć
# między 0 a 1 — waga powstaje dopiero wtedy, gdy softmax obejmie cały wiersz ocen.

# %% tags=["solution"] exercise=1
d_toy = q.shape[-1]                      # d_k w tym przykładzie
dot_02 = q[0] @ k[2]                     # iloczyn skalarny q_0 · k_2
scaled_02 = dot_02 / np.sqrt(d_toy)
terms = " + ".join(f"{a:g}·{b:g}" for a, b in zip(q[0], k[2]))
print("q[0] =", q[0], "  k[2] =", k[2])
print(f"q[0]·k[2] = {terms} = {dot_02:g}")
print(f"scores[0, 2] = {dot_02:g} / √{d_toy} ≈ {scaled_02:.3f}")

np.testing.assert_allclose(scores[0, 2], scaled_02, rtol=1e-15)

# %% [markdown] tags=["solution"] exercise=2
# Wyjście dla pozycji 1 to suma wektorów wartości pomnożonych przez wagi z wiersza 1:
# $y_1 = A[1, 0]\, v_0 + A[1, 1]\, v_1 + A[1, 2]\, v_2$. Komórka poniżej wypisuje każdy
# składnik osobno i sprawdza, że ich suma to `result[1]`.

# %% tags=["solution"] exercise=2
parts = weights[1][:, None] * v          # [n, d]: wiersz j to A[1, j]·v_j
print("weights[1] =", weights[1])
for j in range(len(v)):
    print(f"A[1, {j}]·v[{j}] = {weights[1, j]:.3f}·{v[j]} = {parts[j]}")
print("suma składników:", parts.sum(axis=0), "  result[1]:", result[1])

np.testing.assert_allclose(parts.sum(axis=0), result[1], rtol=1e-12)

# %% [markdown] tags=["solution"] exercise=3
# Suma się nie zmieniła: softmax zawsze zwraca wiersz o sumie 1, ze skalowaniem czy bez.
# Zmieniły się proporcje. Dzielenie przez $\sqrt{d_k} > 1$ zmniejsza różnice między ocenami,
# więc wagi po skalowaniu są bardziej wyrównane — największa z nich jest mniejsza niż bez
# skalowania (ostatnia linijka komórki sprawdza to asercją).

# %% tags=["solution"] exercise=3
unscaled_0 = softmax(raw_scores[0])
print("ze skalowaniem: ", weights[0], " suma:", weights[0].sum())
print("bez skalowania: ", unscaled_0, " suma:", unscaled_0.sum())

sums = [weights[0].sum(), unscaled_0.sum()]
np.testing.assert_allclose(sums, [1.0, 1.0], rtol=1e-12)  # suma bez zmian
assert weights[0].max() < unscaled_0.max()     # skalowanie wyrównało wagi

# %% [markdown] tags=["solution"] exercise=4
# Nowy trzeci wektor wskazuje w przeciwną stronę niż dwa pierwsze, więc iloczyny skalarne
# $q_0 \cdot k_2$ i $q_1 \cdot k_2$ stają się ujemne. Oceny trzeciej pozycji w dwóch
# pierwszych wierszach spadają, a razem z nimi jej wagi — resztę wagi przejmują pozostałe
# pozycje, bo wiersz nadal sumuje się do 1.

# %% tags=["solution"] exercise=4
x_changed = toy_x.copy()
x_changed[2] = EXERCISE_4_THIRD_ROW      # [n, d] z nowym trzecim wektorem
scores_changed = x_changed @ x_changed.T / np.sqrt(d_toy)   # [n, n]
weights_changed = softmax(scores_changed, axis=-1)          # [n, n]

print("nowy trzeci wektor:", x_changed[2])
print("q_0·k_2 i q_1·k_2 teraz:", x_changed[:2] @ x_changed[2])
print("waga pozycji 2 w wierszach 0 i 1, przed:", weights[:2, 2])
print("waga pozycji 2 w wierszach 0 i 1, po:   ", weights_changed[:2, 2])

assert np.all(x_changed[:2] @ x_changed[2] < 0)
assert np.all(weights_changed[:2, 2] < weights[:2, 2])

# %% [markdown] tags=["solution"] exercise=5
# Porównujemy sumy wierszy z jedynkami z jawnie podaną tolerancją. Dokładnej równości nie
# wymagamy: w arytmetyce zmiennoprzecinkowej suma może odbiegać od 1 o błąd zaokrągleń.
# Komórka wypisuje, jak duże jest to odchylenie w naszym przykładzie.

# %% tags=["solution"] exercise=5
row_sums = weights.sum(axis=-1)                       # [n]
np.testing.assert_allclose(row_sums, 1.0, rtol=0, atol=1e-12)
print("sumy wierszy:", row_sums)
print("największe odchylenie od 1:", np.abs(row_sums - 1).max())

# %% [markdown]
# ## Krok 4. Maska przyczynowa: bez podglądania późniejszych tokenów
#
# W modelu, który generuje tekst, reprezentacja pozycji $i$ może korzystać z tokenu na tej
# pozycji i z tokenów wcześniejszych. Nie może korzystać z tokenów na pozycjach $j > i$, bo
# przy przewidywaniu następnego tokenu nie byłyby one jeszcze znane. Ma to znaczenie także
# podczas uczenia: choć wiele pozycji sekwencji przetwarzamy naraz, obliczenie dla każdej
# z nich musi przestrzegać tej samej zasady.
#
# Maskę nakładamy na macierz `scores` przed softmaksem: oceny odpowiadające pozycjom
# z przyszłości zastępujemy przez $-\infty$. Po softmaksie ich wagi wynoszą 0, a wagi
# dozwolonych pozycji nadal sumują się do 1. Dzięki temu w wierszu $i$ biorą udział tylko
# kolumny $j \le i$.
#
# Przykład: dla pozycji $i = 1$ można użyć wartości $v_0$ i $v_1$, ale nie $v_2$. Dla pozycji
# $i = 0$ jedyną dozwoloną wartością jest $v_0$, więc jej waga wyniesie 1.

# %%
# Kontynuacja poprzedniego przykładu: korzystamy z q, v i scores.
n_toy = q.shape[0]

# True oznacza tutaj pozycję z przyszłości (j > i), którą blokujemy.
future = np.triu(np.ones((n_toy, n_toy), dtype=bool), k=1)  # [n, n]

masked_scores = np.where(future, -np.inf, scores)  # [n, n]
causal_weights = softmax(masked_scores, axis=-1)   # [n, n]
causal_context = causal_weights @ v                # [n, d]

print("pozycje zablokowane przez maskę:\n", future)
print("oceny po nałożeniu maski:\n", masked_scores)
print("wagi z maską przyczynową:\n", causal_weights)
print("wyjście uwagi:\n", causal_context)

row_sums = causal_weights.sum(axis=-1)
np.testing.assert_allclose(row_sums, 1.0, rtol=0, atol=1e-12)  # wiersze: 1
assert np.all(causal_weights[future] == 0)   # przyszłość: waga równa 0

# %% [markdown]
# <details class="example">
# <summary>Ten sam krok w PyTorch (odniesienie, nie jest uruchamiany)</summary>
#
# ```python
# # Kontynuacja poprzedniego przykładu: korzystamy z q, v i scores.
# n = q.shape[0]
#
# # True oznacza tutaj pozycję przyszłą, którą chcemy zablokować.
# future = torch.triu(
#     torch.ones(n, n, dtype=torch.bool),
#     diagonal=1,
# )
#
# masked_scores = scores.masked_fill(future, float("-inf"))
# causal_weights = torch.softmax(masked_scores, dim=-1)
# causal_context = causal_weights @ v
#
# print("pozycje zablokowane przez maskę:\n", future)
# print("oceny po nałożeniu maski:\n", masked_scores)
# print("wagi z maską przyczynową:\n", causal_weights)
# print("wyjście uwagi:\n", causal_context)
#
# assert torch.allclose(causal_weights.sum(dim=-1), torch.ones(n))
# assert torch.all(causal_weights[future] == 0)
# ```
#
# </details>
#
# `np.triu(..., k=1)` zostawia wartości `True` tylko nad główną przekątną, czyli tam, gdzie
# $j > i$; w macierzy `future` oznaczają one pozycje do zablokowania. `np.where` wstawia
# w tych miejscach $-\infty$ zamiast oceny (w PyTorch robi to `masked_fill`). Ponieważ
# $\exp(-\infty) = 0$, po softmaksie te pozycje mają wagę 0, a pozostałe wagi w wierszu
# sumują się do 1. Maska decyduje więc, z których pozycji wolno korzystać, a softmax rozdziela
# wagę między pozycje dozwolone.
#
# Obie macierze wag najłatwiej porównać na mapach ciepła. Wiersz $i$ to pozycja, dla której
# liczymy wyjście, kolumna $j$ — pozycja, z której pobieramy informację; pola zablokowane przez
# maskę są zakreskowane.

# %%
from IPython.display import display


def polish(value, _position=None) -> str:
    """Liczba z przecinkiem dziesiętnym, jak w polskim tekście."""
    return f"{value:.2f}".replace(".", ",")


def plot_weights(ax, w: np.ndarray, title: str, blocked=None):
    """Mapa wag [n, n]: wiersz i liczy wyjście, kolumna j jest czytana."""
    blocked = np.zeros(w.shape, dtype=bool) if blocked is None else blocked
    image = ax.imshow(w, cmap="viridis", vmin=0.0, vmax=1.0)
    for i, j in np.ndindex(*w.shape):
        if blocked[i, j]:                # pole zablokowane: szare, kreskowane
            ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1,
                                       facecolor="0.85", edgecolor="0.55",
                                       hatch="///", linewidth=0))
        dark = w[i, j] < 0.6 and not blocked[i, j]
        ax.text(j, i, polish(w[i, j]), ha="center", va="center",
                color="white" if dark else "black")
    ax.set_xticks(range(w.shape[1]))
    ax.set_yticks(range(w.shape[0]))
    ax.set_xlabel("j — pozycja, z której pobieramy informację")
    ax.set_ylabel("i — pozycja, dla której liczymy wyjście")
    ax.set_title(title)
    return image


fig, axes = plt.subplots(2, 1, figsize=(4.8, 7.8), layout="constrained")  # jedna pod drugą
plot_weights(axes[0], weights, "Przed nałożeniem maski")
image = plot_weights(axes[1], causal_weights,
                     "Po nałożeniu maski przyczynowej", blocked=future)
colorbar = fig.colorbar(image, ax=axes, shrink=0.8, label="waga A[i, j]",
                        format=plt.FuncFormatter(polish))
colorbar.ax.yaxis.labelpad = 8           # odstęp podpisu od liczb skali

# Przezroczyste tło, a napisy na jasnych podkładkach: rysunek da się czytać
# zarówno na jasnej, jak i na ciemnej stronie (lub w ciemnym motywie Jupytera).
fig.patch.set_alpha(0.0)
label_box = {"facecolor": "white", "edgecolor": "none", "pad": 1.5}
for ax in fig.axes:
    for text in [ax.title, ax.xaxis.label, ax.yaxis.label,
                 *ax.get_xticklabels(), *ax.get_yticklabels()]:
        text.set_bbox(label_box)

alt = (  # opis rysunku dla czytników ekranu
    "Dwie mapy ciepła wag uwagi dla trzech pozycji, jedna pod drugą. Wiersz i to pozycja, "
    "dla której liczymy wyjście, kolumna j to pozycja, z której pobieramy "
    "informację; w każdym polu wypisana jest waga. U góry wagi bez maski:"
    " każda pozycja czyta ze wszystkich trzech. Na dole wagi z maską "
    "przyczynową: pola nad przekątną (j > i) są zakreskowane na szaro i "
    "mają wagę zero, a pozycja 0 całą wagę przypisuje samej sobie."
)
display(fig, metadata={"alt": alt})
plt.close(fig)

# %% [markdown]
# ## Krok 5. Wykryj przeciek przyszłości
#
# Porównaj dwie sekwencje, które mają ten sam pierwszy wektor, ale różne wektory dalej.
# Z maską wyjście dla pozycji 0 powinno być w obu przypadkach takie samo. Bez maski może się
# zmienić, bo pierwszy wektor zostanie wtedy połączony także z informacją z późniejszych
# pozycji.

# %%
def attention_output(x: np.ndarray, causal: bool) -> np.ndarray:
    """Uwaga dla Q = K = V = x: [n, d] -> [n, d]; causal blokuje j > i."""
    scores = x @ x.T / np.sqrt(x.shape[-1])                 # [n, n]

    if causal:
        n = x.shape[0]
        future = np.triu(np.ones((n, n), dtype=bool), k=1)  # [n, n]
        scores = np.where(future, -np.inf, scores)

    weights = softmax(scores, axis=-1)                      # [n, n]
    return weights @ x                                      # [n, d]


a, b = LEAK_A, LEAK_B                    # [n, d]; ten sam pierwszy wektor
assert np.array_equal(a[0], b[0])
print("sekwencja A:\n", a)
print("sekwencja B:\n", b)

causal_a = attention_output(a, causal=True)[0]
causal_b = attention_output(b, causal=True)[0]
unmasked_a = attention_output(a, causal=False)[0]
unmasked_b = attention_output(b, causal=False)[0]

print("z maską:  ", causal_a, causal_b)
print("bez maski:", unmasked_a, unmasked_b)

# Z maską przyszłość niczego nie zmienia, a pozycja 0 widzi tylko siebie:
np.testing.assert_allclose(causal_a, causal_b, rtol=0, atol=1e-12)
np.testing.assert_allclose(causal_a, a[0], rtol=0, atol=1e-12)
# Bez maski wyjście pozycji 0 zależy od późniejszych wektorów: przeciek.
assert np.abs(unmasked_a - unmasked_b).max() > 1e-3

# %% [markdown]
# <details class="example">
# <summary>Ten sam krok w PyTorch (odniesienie, nie jest uruchamiany)</summary>
#
# ```python
# def attention_output(x: torch.Tensor, causal: bool) -> torch.Tensor:
#     scores = x @ x.T / math.sqrt(x.shape[-1])
#
#     if causal:
#         n = x.shape[0]
#         future = torch.triu(
#             torch.ones(n, n, dtype=torch.bool, device=x.device),
#             diagonal=1,
#         )
#         scores = scores.masked_fill(future, float("-inf"))
#
#     weights = torch.softmax(scores, dim=-1)
#     return weights @ x
#
#
# a = torch.tensor([[1., 0.], [0., 1.], [1., 1.]])
# b = torch.tensor([[1., 0.], [8., 8.], [-7., 2.]])
#
# causal_a = attention_output(a, causal=True)[0]
# causal_b = attention_output(b, causal=True)[0]
# unmasked_a = attention_output(a, causal=False)[0]
# unmasked_b = attention_output(b, causal=False)[0]
#
# print("z maską:", causal_a, causal_b)
# print("bez maski:", unmasked_a, unmasked_b)
#
# assert torch.allclose(causal_a, causal_b)
# assert not torch.allclose(unmasked_a, unmasked_b)
# ```
#
# </details>
#
# Z maską wyjście dla pozycji 0 jest zawsze równe pierwszemu wektorowi sekwencji: pierwsza
# pozycja może korzystać tylko z własnej wartości, która dostaje całą wagę (sprawdza to druga
# asercja). Bez maski jej wyjście zależy także od wektorów na pozycjach 1 i 2 — i właśnie ta
# zależność zdradza przeciek informacji z przyszłości.
#
# ## Co pokazują wagi uwagi, a czego nie wyjaśniają?
#
# Mapa wag pozwala sprawdzić, jaki udział w wyjściu dla pozycji $i$ mają wektory $V$
# z poszczególnych pozycji $j$. Przydaje się więc do obejrzenia, jak działa konkretna głowa
# uwagi w konkretnej warstwie. Wysoka waga nie oznacza jednak automatycznie, że odpowiadający
# jej token miał największy wpływ na końcową odpowiedź modelu.
#
# Waga mówi, jak mocno mnożymy wektor $v_j$, ale nie mówi, co ten wektor zawiera. Dalszy wynik
# zależy również od innych pozycji, głów i warstw oraz od kolejnych przekształceń. Same
# wektory $V$ są obliczane dla bieżącego wejścia za pomocą uczonej macierzy projekcji $W_V$.
#
# Prosty przykład: wkład pozycji $j$ do wyjścia pozycji $i$ to wektor $A[i, j]\, v_j$, a jego
# długość wynosi $A[i, j]\, \lVert v_j \rVert$. Pozycja może więc dostać największą wagę
# w wierszu, a mimo to wnieść niewiele, jeśli jej wektor $v_j$ jest bliski zeru. Sprawdźmy to
# na wagach z maską z kroku 4. W ostatnim wierszu najwięcej wagi dostaje sama pozycja 2.
# Zostawmy te wagi bez zmian, ale mocno skróćmy jej wektor wartości (mnożymy go przez mały
# czynnik `WEAK_VALUE_SCALE` z komórki z danymi; komórka wypisuje, ile razy jest krótszy) —
# w prawdziwym modelu $V = HW_V$ liczy się inną macierzą niż klucze, więc waga i wektor
# wartości mogą być od siebie niezależne.

# %%
i_last = n_toy - 1                     # ostatni wiersz widzi wszystko
w_row = causal_weights[i_last]         # [n]: wagi A[i, j] z kroku 4
j_top = int(np.argmax(w_row))          # pozycja z największą wagą

v_weak = toy_x.copy()                  # [n, d]: wektory wartości
v_weak[j_top] *= WEAK_VALUE_SCALE      # ta sama waga, krótki v_j
contributions = w_row[:, None] * v_weak          # [n, d]: A[i, j]·v_j
sizes = np.linalg.norm(contributions, axis=1)    # [n]: długości wkładów

print(f"wektor v_{j_top} skrócony {1 / WEAK_VALUE_SCALE:g} razy")
print(f"wagi A[{i_last}, j]:              ", w_row)
print("długości wektorów v_j:       ", np.linalg.norm(v_weak, axis=1))
print("długości wkładów A[i, j]·v_j:", sizes)
print(f"pozycja {j_top} ma największą wagę i najmniejszy wkład:",
      bool(np.argmin(sizes) == j_top))

assert np.argmin(sizes) == j_top       # największa waga, najmniejszy wkład

# %% [markdown]
# Pozycja z największą wagą wnosi tu najmniejszy wkład. Sama waga nie wystarcza więc do oceny,
# ile informacji przekazano — a tym bardziej do wyjaśnienia końcowej predykcji całego modelu.
#
# Nie wyciągaj z pojedynczej mapy ciepła wniosku: „model przypisał temu słowu wysoką wagę, więc
# to ono spowodowało odpowiedź”. Mapa pokazuje wagi na jednym etapie obliczeń. Żeby sprawdzić
# wpływ tokenu na predykcję, potrzeba dodatkowej analizy, na przykład porównania wyników po
# kontrolowanej zmianie wejścia — tak jak w eksperymencie z przeciekiem, gdzie zmienialiśmy
# późniejsze wektory i patrzyliśmy, czy wyjście pozycji 0 się zmieni.
#
# <div class="admonition tip">
# <p class="admonition-title">Praca z AI</p>
#
# Możesz poprosić asystenta AI o kod rysujący mapy ciepła wag przed nałożeniem maski i po jej
# nałożeniu — takie jak w kroku 4. Podpisy osi sprawdź jednak sam: wiersz $i$ oznacza
# pozycję, dla której liczymy wyjście, a kolumna $j$ — pozycję, z której pobieramy informację.
#
# **Ćwiczenie 6.** Wskaż pola wyzerowane przez maskę i wyjaśnij, dlaczego w naszej
# implementacji to wiersze, a nie kolumny, sumują się do 1.
#
# </div>

# %% [markdown] tags=["solution"] exercise=6
# Maska zeruje pola nad przekątną, czyli te, w których $j > i$ — na dolnej mapie są
# zakreskowane. Wiersze sumują się do 1, bo softmax liczymy osobno dla każdego wiersza
# (`axis=-1`): wiersz $i$ rozdziela całą „uwagę” pozycji $i$ między pozycje, z których wolno
# jej czytać. Kolumna $j$ mówi natomiast, jak mocno z pozycji $j$ korzystają różne pozycje,
# i nic nie wymusza, żeby te liczby sumowały się do 1. Komórka poniżej wypisuje jedne i drugie
# sumy.

# %% tags=["solution"] exercise=6
blocked_cells = [(int(i), int(j)) for i, j in np.argwhere(future)]
print("pola wyzerowane przez maskę (i, j):", blocked_cells)
print("sumy wierszy:  ", causal_weights.sum(axis=1))
print("sumy kolumn:   ", causal_weights.sum(axis=0))

assert not np.allclose(causal_weights.sum(axis=0), 1.0)

# %% [markdown]
# ## Krok 6. Kilka głów naraz
#
# Dotąd liczyliśmy jedną głowę uwagi. Transformer liczy ich kilka równolegle (*multi-head
# attention*): każda głowa ma własne zapytania, klucze i wartości o długości
# $d_k = d_\text{model} / h$, więc każda może szukać w sekwencji czegoś innego. Przepis ma
# pięć kroków:
#
# 1. Rzutujemy $H$ na $Q = HW_Q$, $K = HW_K$ i $V = HW_V$, tym razem macierzami o kształcie
#    `[d_model, d_model]`.
# 2. **Dzielimy** każdą z nich na $h$ głów: kolumny od $0$ do $d_k - 1$ należą do pierwszej
#    głowy (w kodzie `[0]`: głowy, jak pozycje, numerujemy w Pythonie od zera), kolejne $d_k$
#    kolumn do drugiej i tak dalej. Kształt `[n, d_model]` przechodzi
#    w `[h, n, d_k]`.
# 3. W każdej głowie osobno liczymy uwagę z maską przyczynową, dzieląc oceny przez
#    $\sqrt{d_k}$ jednej głowy, a nie przez $\sqrt{d_\text{model}}$.
# 4. **Sklejamy** wyjścia głów z powrotem w macierz `[n, h · d_k]`, czyli `[n, d_model]`.
# 5. Mnożymy sklejenie przez $W_O$ (`[d_model, d_model]`), która miesza informacje zebrane
#    przez różne głowy.
#
# Pracujemy na macierzy $H$ z kroku 2 (cztery pozycje, $d_\text{model} = 4$) i dzielimy ją na
# dwie głowy. Komórka poniżej losuje cztery macierze wag `[d_model, d_model]` (ze skalą
# $1/\sqrt{d_\text{model}}$, żeby oceny nie były zbyt duże) i przygotowuje maskę dla czterech
# pozycji.

# %%
rng_heads = np.random.default_rng(SEED_HEADS)
d_head = d_model // N_HEADS                       # d_k jednej głowy
init = 1 / np.sqrt(d_model)                       # skala typowej inicjalizacji wag
w_q_mh = init * rng_heads.standard_normal((d_model, d_model))   # W_Q
w_k_mh = init * rng_heads.standard_normal((d_model, d_model))   # W_K
w_v_mh = init * rng_heads.standard_normal((d_model, d_model))   # W_V
w_o = init * rng_heads.standard_normal((d_model, d_model))      # W_O

n_seq = h.shape[0]
future_4 = np.triu(np.ones((n_seq, n_seq), dtype=bool), k=1)   # [n, n]: j > i
print("H:", h.shape, "  głowy:", N_HEADS, "  d_k jednej głowy:", d_head)

# %% [markdown]
# **Ćwiczenie 7.** Napisz funkcję `split_heads(x, n_heads)`, która zamienia `[n, d_model]`
# w `[h, n, d_k]`, i funkcję `merge_heads(x)`, która robi odwrotnie. Potem policz wyjście uwagi
# wielogłowej z maską przyczynową. Sprawdź asercjami, że `merge_heads(split_heads(h))` daje
# z powrotem `h` i że pozycja 0 w każdej głowie całą wagę przypisuje sobie.

# %% [markdown] tags=["solution"] exercise=7
# Podział to zmiana kształtu i zamiana osi: `reshape` tnie każdy wiersz na $h$ kawałków po
# $d_k$ liczb, a `transpose` wysuwa oś głów na początek, żeby mnożenie macierzy działało
# w każdej głowie osobno. Maskę `[n, n]` NumPy powiela na wszystkie głowy. Przy budowaniu
# strony ukryta komórka porównuje ten wynik z biblioteką `attn_core`.

# %% tags=["solution"] exercise=7
def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """[n, d_model] -> [h, n, d_k]: głowa g dostaje kolumny g·d_k … (g+1)·d_k − 1."""
    n_rows, d = x.shape
    return x.reshape(n_rows, n_heads, d // n_heads).transpose(1, 0, 2)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """[h, n, d_k] -> [n, h·d_k]: wyjścia głów obok siebie."""
    n_heads, n_rows, d_k_head = x.shape
    return x.transpose(1, 0, 2).reshape(n_rows, n_heads * d_k_head)


q_heads = split_heads(h @ w_q_mh, N_HEADS)        # [h, n, d_k]
k_heads = split_heads(h @ w_k_mh, N_HEADS)        # [h, n, d_k]
v_heads = split_heads(h @ w_v_mh, N_HEADS)        # [h, n, d_k]

scores_mh = q_heads @ k_heads.transpose(0, 2, 1) / np.sqrt(d_head)   # [h, n, n]
scores_mh = np.where(future_4, -np.inf, scores_mh)   # ta sama maska w każdej głowie
weights_mh = softmax(scores_mh, axis=-1)             # [h, n, n]
heads_out = weights_mh @ v_heads                     # [h, n, d_k]
multi_out = merge_heads(heads_out) @ w_o             # [n, d_model]

print("wagi pierwszej głowy, weights_mh[0]:\n", weights_mh[0])
print("wagi drugiej głowy, weights_mh[1]:\n", weights_mh[1])
print("wyjście uwagi wielogłowej:\n", multi_out)

assert np.array_equal(merge_heads(split_heads(h, N_HEADS)), h)
assert np.all(weights_mh[:, 0, 0] == 1.0)          # pozycja 0 widzi tylko siebie

# %% [markdown]
# Dwie głowy dostają te same pozycje i tę samą maskę, a mimo to rozkładają wagi inaczej, bo
# każda porównuje inne fragmenty zapytań i kluczy. Warto też zauważyć, że podział na głowy nie
# dodaje parametrów: cztery macierze `[d_model, d_model]` są tej samej wielkości przy jednej
# głowie i przy wielu. Każda głowa ma natomiast własną macierz wag `[n, n]`, więc pamięć na
# wagi rośnie razem z liczbą głów.
#
# ## Krok 7. Rezultat pracy
#
# Po tym laboratorium masz w notatniku cały tor obliczeń uwagi:
#
# - tabelę embeddingów $E$, z której ID tokenów wybierają wiersze, i tabelę pozycji
#   $E_\text{pos}$, dzięki której powtórzony token dostaje różne reprezentacje $H = X + P$;
# - projekcje $Q = HW_Q$, $K = HW_K$, $V = HW_V$ z wypisanymi kształtami;
# - *scaled dot-product attention* policzony krok po kroku: oceny, skalowanie przez
#   $\sqrt{d_k}$, softmax w wierszach i ważoną sumę wektorów $V$;
# - maskę przyczynową z asercjami: wiersze sumują się do 1, a pola z przyszłości mają wagę 0;
# - eksperyment, który wykrywa przeciek informacji z przyszłości, i mapy ciepła wag przed
#   maską i po niej;
# - przykład, w którym pozycja z największą wagą wnosi najmniejszy wkład — powód, dla którego
#   same wagi nie wyjaśniają odpowiedzi modelu;
# - uwagę wielogłową: podział na głowy, maskę w każdej głowie, sklejenie i projekcję $W_O$.
#
# Pozostałe strony tego serwisu liczą uwagę własną biblioteką. Przy budowaniu strony ukryta
# komórka sprawdza, że ręcznie napisany kod tego notatnika daje dokładnie te same macierze co
# ona, więc laboratorium i reszta serwisu nie mogą się rozjechać.
#
# <div class="admonition next-step">
# <p class="admonition-title">Co dalej</p>
# <p>Czwarty krok trasy to wpis <a href="../../posty/llm-mechanizm-uwagi/">Anatomia LLM:
# mechanizm uwagi</a>: skąd uwaga się wzięła, dlaczego oceny dzielimy przez pierwiastek z wymiaru klucza, po co
# wiele głów i pozycje obracane przez RoPE, ile pamięci zajmuje pamięć podręczna kluczy
# i wartości w modelach Llama i jak FlashAttention liczy to samo szybciej.</p>
# </div>

# %% tags=["repo-only", "remove_cell"]
from attn_core import (attention_matrix_bytes, embedding_lookup, future_mask,
                       learned_positions, multi_head_attention,
                       scaled_dot_product_attention)


def library_attention(x, causal=False):
    """Q = K = V = x w attn_core; maska jako macierz bool (True = blokada)."""
    mask = future_mask(len(x)) if causal else None
    return scaled_dot_product_attention(x, x, x, mask=mask)


toy, toy_causal = library_attention(TOY_X), library_attention(TOY_X, True)
step2 = scaled_dot_product_attention(h @ w_q, h @ w_k, h @ w_v,
                                     mask=future_mask(len(h)))
multi = multi_head_attention(h, w_q_mh, w_k_mh, w_v_mh, w_o, N_HEADS,
                             mask=future_mask(n_seq))
checks = {  # nazwa: (wartość z tego notatnika, wartość z attn_core)
    "embeddingi X": (x[0], embedding_lookup(E, INPUT_IDS)),
    "pozycje P": (position_vectors[0], learned_positions(E_pos, n)),
    "oceny QKᵀ": (raw_scores, toy.scores),
    "oceny po skalowaniu": (scores, toy.scaled),
    "wagi": (weights, toy.weights),
    "wagi a_20, a_21, a_22 z kroku 2": (a_2, step2.weights[2, :3]),
    "wyjście": (result, toy.output),
    "maska": (future, future_mask(len(TOY_X))),
    "wagi z maską": (causal_weights, toy_causal.weights),
    "wyjście z maską": (causal_context, toy_causal.output),
    "przeciek, A z maską": (causal_a, library_attention(a, True).output[0]),
    "przeciek, B z maską": (causal_b, library_attention(b, True).output[0]),
    "przeciek, A bez maski": (unmasked_a, library_attention(a).output[0]),
    "przeciek, B bez maski": (unmasked_b, library_attention(b).output[0]),
    "bajty macierzy n × n": (
        size_bytes, attention_matrix_bytes(n_long, FLOAT32_BYTES)),
    "wagi głów": (weights_mh, multi.weights),
    "wyjście uwagi wielogłowej": (multi_out, multi.output),
}
for name, (ours, library) in checks.items():
    np.testing.assert_allclose(ours, library, rtol=1e-12, atol=1e-15,
                               err_msg=name)
    print(f"{name}: zgodne")
