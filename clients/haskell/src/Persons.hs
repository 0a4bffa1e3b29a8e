{-# LANGUAGE BangPatterns #-}
-- | The person file (docs/protocol.md, "The person file"), read once into C memory (so the C loops and
-- the Haskell loops read the same bytes, and nothing moves under a pointer), checked at open, and
-- RowSum, the checksum every decoded row is folded into.
module Persons
  ( Persons (..), readPersons, parsePersons, email, name, age, rowSum
  ) where


import qualified Data.ByteString as B
import qualified Data.ByteString.Unsafe as BU
import Foreign

data Persons = Persons
  { pCount :: !Int
  , pSeed :: !Word64
  , pChecksum :: !Word64
  , pBase :: !(Ptr Word8) -- ^ the whole file (mallocBytes; lives as long as the process's store)
  , pEoff :: !(Ptr Word32) -- ^ N+1 email offsets
  , pNoff :: !(Ptr Word32) -- ^ N+1 name offsets
  , pSorted :: !(Ptr Word32) -- ^ person indices in email byte order
  , pAges :: !(Ptr Word8)
  , pEmails :: !(Ptr Word8)
  , pNames :: !(Ptr Word8)
  }

readPersons :: FilePath -> IO (Either String Persons)
readPersons path = B.readFile path >>= parsePersons

le :: (Integral a) => B.ByteString -> Int -> Int -> a
le b at n = fromIntegral (foldr (\i acc -> acc `shiftL` 8 .|. fromIntegral (BU.unsafeIndex b (at + i))) (0 :: Integer) [0 .. n - 1])

-- | Checks a person file's header and offsets and copies it into C memory.
parsePersons :: B.ByteString -> IO (Either String Persons)
parsePersons b
  | B.length b < 64 || B.take 8 b /= B.pack (map (fromIntegral . fromEnum) "DBBPERS1") = pure (Left "not a person file (no DBBPERS1 header)")
  | le b 8 4 /= (1 :: Int) = pure (Left ("version " ++ show (le b 8 4 :: Int) ++ ", this client reads version 1"))
  | h < 64 || n >= 2 ^ (31 :: Int) || want /= toInteger (B.length b) =
      pure (Left ("header says " ++ show n ++ " persons in " ++ show want ++ " bytes, the file has " ++ show (B.length b)))
  | otherwise = do
      base <- mallocBytes (B.length b)
      BU.unsafeUseAsCString b $ \src -> copyBytes base (castPtr src) (B.length b)
      let ni = fromInteger n
          hi = fromInteger h
          eoff = base `plusPtr` hi
          noff = eoff `plusPtr` (4 * (ni + 1))
          sorted = noff `plusPtr` (4 * (ni + 1))
          ages = sorted `plusPtr` (4 * ni)
          emails = ages `plusPtr` ni
          names = emails `plusPtr` fromInteger e
          p = Persons ni (le b 24 8) (le b 48 8) base eoff noff sorted ages emails names
      bad <- problems p (fromInteger e) (fromInteger m)
      case bad of
        Nothing -> pure (Right p)
        Just why -> free base >> pure (Left why)
  where
    h = le b 12 4 :: Integer
    n = le b 16 8 :: Integer
    e = le b 32 8 :: Integer
    m = le b 40 8 :: Integer
    want = h + e + m + 13 * n + 8

problems :: Persons -> Int -> Int -> IO (Maybe String)
problems p e m = do
  okE <- ascending (pEoff p) e
  okN <- ascending (pNoff p) m
  idx <- mapM (peekElemOff (pSorted p)) [0 .. pCount p - 1]
  pure $ case () of
    _ | not okE -> Just ("email offsets are not ascending within " ++ show e ++ " bytes")
      | not okN -> Just ("name offsets are not ascending within " ++ show m ++ " bytes")
      | any ((>= pCount p) . fromIntegral) idx -> Just "the sorted index names a person past the end"
      | otherwise -> Nothing
  where
    ascending off total = do
      xs <- mapM (peekElemOff off) [0 .. pCount p]
      pure (head xs == 0 && fromIntegral (last xs) == total && and (zipWith (<=) xs (tail xs)))

-- | Person i's email, name (pointer and length) and age.
email, name :: Persons -> Int -> IO (Ptr Word8, Int)
email p i = slice (pEmails p) (pEoff p) i
name p i = slice (pNames p) (pNoff p) i
{-# INLINE email #-}
{-# INLINE name #-}

slice :: Ptr Word8 -> Ptr Word32 -> Int -> IO (Ptr Word8, Int)
slice base off i = do
  a <- peekElemOff off i
  z <- peekElemOff off (i + 1)
  pure (base `plusPtr` fromIntegral a, fromIntegral (z - a))
{-# INLINE slice #-}

age :: Persons -> Int -> IO Word8
age p = peekElemOff (pAges p)
{-# INLINE age #-}

mul :: Word64
mul = 0x9e3779b97f4a7c15

-- x86-64 reads unaligned words; the dataset is little-endian, as is the host.
le64 :: Ptr Word8 -> Int -> IO Word64
le64 = peekByteOff
{-# INLINE le64 #-}

fold :: Word64 -> Ptr Word8 -> Int -> IO Word64
fold !h0 s n
  | n < 8 = do
      let go !v !i
            | i < 0 = pure v
            | otherwise = do
                x <- peekByteOff s i :: IO Word8
                go (v `shiftL` 8 .|. fromIntegral x) (i - 1)
      v <- go 0 (n - 1)
      pure ((h0 `xor` v) * mul)
  | otherwise = do
      let go !h !p
            | n - p > 8 = do
                w <- le64 s p
                go ((h `xor` w) * mul) (p + 8)
            | otherwise = do
                w <- le64 s (n - 8)
                pure ((h `xor` w) * mul)
      go h0 0
{-# INLINE fold #-}

-- | RowSum(email, name, age) over bytes in memory (docs/protocol.md).
rowSum :: Ptr Word8 -> Int -> Ptr Word8 -> Int -> Word8 -> IO Word64
rowSum e en nm nn a = do
  let h0 = (fromIntegral en `shiftL` 40) `xor` (fromIntegral nn `shiftL` 32) `xor` fromIntegral a
  h1 <- fold h0 e en
  h2 <- fold h1 nm nn
  let h3 = h2 * mul
  pure (h3 `xor` (h3 `shiftR` 29))
{-# INLINE rowSum #-}

